"""The playground's recorder: turns transformation calls into trace cards (jaxprs as data,
forward values, gradient flow, stages, a replayable timeline). Public module: didax.viz."""
