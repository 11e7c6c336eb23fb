"""``sampan.inference``: Config, create_predictor and the Predictor that runs
a saved model on the executor with its plan built once."""
