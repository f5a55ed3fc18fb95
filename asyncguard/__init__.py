"""asyncguard: static verification of asynchronous shared-memory synchronization in GPU kernels."""
__version__ = "0.1.0"
