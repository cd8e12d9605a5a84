"""The interpreters: ad (JVP, linearize, transpose), batching (vmap), partial_eval
(staging, partial evaluation, DCE) and lowering (StableHLO). Each owns its rule tables."""
