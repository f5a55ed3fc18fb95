"""Dynamic confirmation: emit a kernel's synchronization skeleton as CUDA and run it (sanitize)."""
