"""Inputs other than TIR text: TileLang kernels written in Python (`.py` files).

`python` is the parent side (no TileLang import: it starts a child process with a time limit);
`tilelang_lower` is what runs in that child (imports the user's module and TileLang, lowers).
"""
