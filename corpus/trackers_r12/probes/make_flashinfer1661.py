"""Rebuild the flashinfer1661 pair from flashinfer1661_body.tir (FIX_LINE placeholder) and flashinfer1661_hdr.txt:
BUGGY drops the placeholder, FIXED puts the added __syncthreads() (T.tvm_storage_sync("shared")) there."""
import os
d = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + "/"
b = open(d + "probes/flashinfer1661_body.tir").read()
h = ["# from tvm.script import tirx as T"] + ["# " + l if l else "#" for l in open(d + "probes/flashinfer1661_hdr.txt").read().splitlines()]
hdr = "\n".join(h) + "\n"
name = "flashinfer1661_persistent_merge_states_next_item_cpasync_overwrites_sync_state_sm80"
open(d + name + ".tir", "w").write(hdr + b.replace("FIX_LINE\n", ""))
open(d + name + "_fixed.tir", "w").write(hdr + b.replace("FIX_LINE", '        T.tvm_storage_sync("shared")'))
