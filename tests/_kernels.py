"""A small hand kernel for engine tests: 64 threads, a 64-float shared buffer `S`, a one-element
register `acc`, global `A` and `B`; `kernel64(body)` puts the body's lines after the header
(the body's first line is line 10)."""

HEAD64 = '''# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"target": T.target({"arch": "sm_80", "keys": ["cuda", "gpu"], "kind": "cuda", "tag": "", "thread_warp_size": 32})})
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((64,), scope="shared")
    acc = T.alloc_buffer((1,), scope="local")
'''


def kernel64(body: str) -> str:
    return HEAD64 + "".join(f"    {line}\n" for line in body.strip().splitlines())
