"""The symbolic prover: z3 behind one small API. Verdicts are three-valued (proved, refuted with
a model, unknown with a reason); a deterministic resource limit (rlimit), never wall-clock alone,
bounds every query, and `unknown` is never treated as safe.

`encode` (exact TIR -> z3 terms), `periodic` (equal-under-shift proofs), `sizes` (symbolic
kernel parameters). Nothing here is imported until a proof is needed: z3 takes time to load.
"""
