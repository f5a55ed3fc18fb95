"""Rebuild the two nvFuser pairs from fuserNNNN_body.tir (placeholder) + fuserNNNN_hdr.txt.
fuser3863: BUGGY drops FIX_LINES; FIXED puts wgmma commit + wait<0> there (before the WAR arrive).
fuser3865: MAIN_TAIL is the end of the main loop: BUGGY = __syncthreads, commit, wait<0>; FIXED = commit, wait<0>,
__syncthreads."""
import os
d = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + "/"

def hdr(n):
    h = ["# from tvm.script import tirx as T"] + ["# " + l if l else "#" for l in open(d + "probes/" + n).read().splitlines()]
    return "\n".join(h) + "\n"

b = open(d + "probes/fuser3863_body.tir").read()
h = hdr("fuser3863_hdr.txt")
n = "fuser3863_ws_compute_warp_arrives_empty_before_wgmma_wait_sm90a"
open(d + n + ".tir", "w").write(h + b.replace("FIX_LINES\n", ""))
open(d + n + "_fixed.tir", "w").write(h + b.replace("FIX_LINES", "            T.warpgroup_commit_batch()\n            T.warpgroup_wait(0)"))

b = open(d + "probes/fuser3865_body.tir").read()
h = hdr("fuser3865_hdr.txt")
n = "fuser3865_pipelined_syncthreads_before_wgmma_wait_tma_refill_sm90a"
s, c, w = '        T.tvm_storage_sync("shared")', "        T.warpgroup_commit_batch()", "        T.warpgroup_wait(0)"
open(d + n + ".tir", "w").write(h + b.replace("MAIN_TAIL", "\n".join([s, c, w])))
open(d + n + "_fixed.tir", "w").write(h + b.replace("MAIN_TAIL", "\n".join([c, w, s])))
