"""The matrix decompositions have no ONNX operator: the export refuses them, saying so."""
from __future__ import annotations

from ...ops import linalg_decompositions as ld

NO_EQUIVALENT = {
    ld.SVD: "ONNX (opset 17) has no singular value decomposition operator (rt.linalg.svd)",
    ld.SVD_UV: "ONNX (opset 17) has no singular value decomposition operator (rt.linalg.svd)",
    ld.QR: "ONNX (opset 17) has no QR decomposition operator (rt.linalg.qr)",
    ld.EIGH: "ONNX (opset 17) has no eigendecomposition operator (rt.linalg.eigh)",
}
