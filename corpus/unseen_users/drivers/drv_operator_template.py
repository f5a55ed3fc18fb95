"""Driver for corpus/unseen_users (not part of the source repository): Leafoon/tilelang-operator-dev
resources/operator_template/example_operator/operator.py, the @tilelang.jit GEMM of its operator template
(its defaults: block 128x128x32, 3 stages, fp16 / fp32 accumulate) on 1024x1024x1024, as its benchmark.py-style
callers would build it. Nothing of operator.py is changed. Placed at tl_operator_dev/ in the scratch tree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "resources", "operator_template"))
from example_operator import operator  # noqa: E402

operator.example_matrix_multiply(1024, 1024, 1024)
