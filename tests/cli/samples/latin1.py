# -*- coding: latin-1 -*-
def greet(name="José"):
    if name:
        return "¡hola, " + name + "!"
    return ""

print(greet().encode("utf-8"))
