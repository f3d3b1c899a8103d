"""Shapes shared by the per-framework tests (the NumPy tests define their own)."""

SHAPES = [(0, 0), (0, 5), (5, 0), (1, 1), (1, 1000), (1000, 1), (2, 3), (31, 33), (33, 31),
          (32, 32), (64, 65), (127, 129), (3, 1003), (1003, 3), (257, 300), (1025, 2049)]
BATCHED = [(0, 4, 5), (1, 1, 1), (3, 17, 33), (5, 1, 7), (4, 64, 3), (2, 100, 101), (7, 33, 65)]
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
