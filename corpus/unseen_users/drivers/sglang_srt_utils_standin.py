"""Stand-in for sglang.srt.utils (corpus/unseen_users; not sglang code): the NSA TileLang kernel file imports
only is_hip from it, and answers as on an NVIDIA GPU. Copied to sglang/python/sglang/srt/utils.py in the
scratch tree, where only tilelang_kernel.py of sglang is."""


def is_hip():
    return False
