"""A training loop as a TensorFlow user writes it: an input pipeline (`rt.data`), a model
(`rt.Module` with `rt.nn` layers), a loss, `GradientTape` and `rt.optimizers.Adam` — each
epoch one `rt.function` call whose loop over the batches is one staged loop.

    python examples/train.py

Prints the loss after each epoch (it falls), the accuracy, and how many times the epoch
function was traced (once: the graph does not grow with the data).
"""
import numpy as np

import runtime as rt

N, FEATURES, HIDDEN, CLASSES = 512, 16, 32, 3


def make_data(seed=0):
    """Points labelled by which of three random directions they lie furthest along."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, FEATURES)).astype(np.float32)
    directions = rng.normal(size=(FEATURES, CLASSES)).astype(np.float32)
    y = np.argmax(x @ directions + 0.1 * rng.normal(size=(N, CLASSES)), axis=1).astype(np.int32)
    return x, y


class MLP(rt.Module):
    """Two dense layers with a relu between them."""

    def __init__(self, seed=1):
        super().__init__()
        rng = np.random.default_rng(seed)
        with self.name_scope:
            self.w1 = rt.Variable(rng.normal(scale=FEATURES ** -0.5, size=(FEATURES, HIDDEN))
                                  .astype(np.float32), name="w1")
            self.b1 = rt.Variable(np.zeros(HIDDEN, np.float32), name="b1")
            self.w2 = rt.Variable(rng.normal(scale=HIDDEN ** -0.5, size=(HIDDEN, CLASSES))
                                  .astype(np.float32), name="w2")
            self.b2 = rt.Variable(np.zeros(CLASSES, np.float32), name="b2")

    def __call__(self, x):
        hidden = rt.nn.relu(rt.matmul(x, self.w1) + self.b1)
        return rt.matmul(hidden, self.w2) + self.b2


def make_training(model, optimizer):
    @rt.function
    def train_epoch(dataset):
        total = 0.0
        batches = 0
        for xb, yb in dataset:                  # one staged loop over the batches
            with rt.GradientTape() as tape:
                logits = model(xb)
                loss = rt.reduce_mean(
                    rt.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += loss
            batches += 1
        return total / rt.cast(batches, rt.float32)

    return train_epoch


if __name__ == "__main__":
    x, y = make_data()
    dataset = (rt.data.Dataset.from_tensor_slices((x, y))
               .shuffle(N, seed=0)
               .batch(64, drop_remainder=True))
    model = MLP()
    train_epoch = make_training(model, rt.optimizers.Adam(learning_rate=0.01))
    print("variables:", [v.name for v in model.trainable_variables])
    for epoch in range(10):
        print(f"epoch {epoch}: loss {float(train_epoch(dataset)):.4f}")
    accuracy = np.mean(np.argmax(model(rt.constant(x)).numpy(), axis=1) == y)
    print(f"accuracy {accuracy:.3f}")
    print("traced", train_epoch.experimental_get_tracing_count(), "time(s) for 10 epochs")
