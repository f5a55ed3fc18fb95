"""Driver for corpus/unseen_users3 (not part of the source repository): deepseek-ai/TileKernels quantization
kernels (tile_kernels/quant/*_kernel.py) and the batched transpose, each jit factory called with DeepSeek-V3
sizes (hidden 7168, FP8 e4m3 with 1x128 / 128x128 scale blocks, bf16 input, SwiGLU intermediate 2048).
The package targets SM90/SM100. Placed at tilekernels/ in the scratch tree."""
import torch
from tilelang import language as T
from _tk_common import call
from tile_kernels.config import get_num_sms
from tile_kernels.quant.common import CastInputConfig, CastOutputConfig
from tile_kernels.quant.per_token_cast_kernel import get_per_token_cast_kernel
from tile_kernels.quant.per_block_cast_kernel import get_per_block_cast_kernel
from tile_kernels.quant.per_block_cast_lossless_kernel import get_per_block_cast_lossless_kernel
from tile_kernels.quant.per_channel_cast_and_transpose_kernel import get_per_channel_cast_and_transpose_kernel
from tile_kernels.quant.per_channel_cast_fused_kernel import get_per_channel_cast_fused_kernel
from tile_kernels.quant.cast_back_kernel import get_cast_back_kernel
from tile_kernels.quant.swiglu_forward_and_per_token_cast_kernel import get_swiglu_forward_and_per_token_cast_kernel
from tile_kernels.quant.swiglu_forward_and_per_channel_cast_and_transpose_kernel import (
    get_swiglu_forward_and_per_channel_cast_and_transpose_kernel)
from tile_kernels.quant.swiglu_backward_and_per_token_cast_kernel import get_swiglu_backward_and_per_token_cast_kernel
from tile_kernels.transpose.batched_transpose_kernel import get_batched_transpose_kernel

H, I = 7168, 2048
bf16_in = CastInputConfig(torch_dtype=torch.bfloat16, with_sf=False)
fp8_in_tok = CastInputConfig(torch_dtype=torch.float8_e4m3fn, with_sf=True, sf_block=(1, 128))
out_tok = CastOutputConfig(torch_dtype=torch.float8_e4m3fn, sf_block=(1, 128))
out_blk = CastOutputConfig(torch_dtype=torch.float8_e4m3fn, sf_block=(128, 128))
out_chn = CastOutputConfig(torch_dtype=torch.float8_e4m3fn, sf_block=(128, 1))
call("per_token_cast", get_per_token_cast_kernel, H, H, bf16_in, out_tok)
call("per_block_cast", get_per_block_cast_kernel, H, bf16_in, out_blk)
call("per_block_cast_lossless", get_per_block_cast_lossless_kernel, H, H, fp8_in_tok, out_blk)
call("per_channel_cast_and_transpose", get_per_channel_cast_and_transpose_kernel, H, T.bfloat16, out_chn)
call("per_channel_cast_fused", get_per_channel_cast_fused_kernel, H, False, fp8_in_tok, out_chn)
call("cast_back", get_cast_back_kernel, H, fp8_in_tok, T.bfloat16)
call("swiglu_fwd_per_token_cast", get_swiglu_forward_and_per_token_cast_kernel, I, True, True, False, False,
     T.bfloat16, out_tok, get_num_sms())
call("swiglu_fwd_per_channel_cast_transpose", get_swiglu_forward_and_per_channel_cast_and_transpose_kernel, I, False,
     False, T.bfloat16, out_chn, 0.0)
call("swiglu_bwd_per_token_cast", get_swiglu_backward_and_per_token_cast_kernel, I, out_tok, False)
call("batched_transpose", get_batched_transpose_kernel, 0, 0, T.bfloat16)
