"""A training script as a TensorFlow user writes it on day one: an input pipeline
(`rt.data`), a model (`rt.Module` with `rt.nn` layers), a loss, `GradientTape` and
`rt.optimizers.Adam`, each epoch one `rt.function` call whose loop over the batches is one
staged loop; a checkpoint after every epoch (`rt.train.Checkpoint` +
`CheckpointManager`), a restart that resumes where the last run stopped, and curves for
TensorBoard (`rt.summary`: the loss at every step, written by the staged loop as it runs;
the weights' histograms after every epoch).

    python examples/train.py                       # 10 epochs, checkpoints in ./train_checkpoints
    python examples/train.py                       # again: resumes at epoch 10, step 80
    python examples/train.py --epochs 3 --checkpoint-dir /tmp/ckpts --logdir /tmp/logs
    tensorboard --logdir train_logs                # the loss curve, across the restart

(The event files need tensorboardX: `pip install -e '.[tensorboard]'`; without it the
script says so and trains without them.)

Prints the loss after each epoch with the step count (it falls, and after a restart it
goes on from where it was), the accuracy, and how many times the epoch function was
traced (once: the graph does not grow with the data).
"""
import argparse
import os

import numpy as np

import runtime as rt

N, FEATURES, HIDDEN, CLASSES = 512, 16, 32, 3


def make_data(seed=0):
    """Points labelled by which of three random directions they lie furthest along."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, FEATURES)).astype(np.float32)
    directions = rng.normal(size=(FEATURES, CLASSES)).astype(np.float32)
    y = np.argmax(x @ directions + 0.1 * rng.normal(size=(N, CLASSES)), axis=1).astype(np.int32)
    return x, y


class MLP(rt.Module):
    """Two dense layers with a relu between them."""

    def __init__(self, seed=1):
        super().__init__()
        rng = np.random.default_rng(seed)
        with self.name_scope:
            self.w1 = rt.Variable(rng.normal(scale=FEATURES ** -0.5, size=(FEATURES, HIDDEN))
                                  .astype(np.float32), name="w1")
            self.b1 = rt.Variable(np.zeros(HIDDEN, np.float32), name="b1")
            self.w2 = rt.Variable(rng.normal(scale=HIDDEN ** -0.5, size=(HIDDEN, CLASSES))
                                  .astype(np.float32), name="w2")
            self.b2 = rt.Variable(np.zeros(CLASSES, np.float32), name="b2")

    def __call__(self, x):
        hidden = rt.nn.relu(rt.matmul(x, self.w1) + self.b1)
        return rt.matmul(hidden, self.w2) + self.b2


def make_training(model, optimizer):
    @rt.function
    def train_epoch(dataset):
        total = 0.0
        batches = 0
        for xb, yb in dataset:                  # one staged loop over the batches
            with rt.GradientTape() as tape:
                logits = model(xb)
                loss = rt.reduce_mean(
                    rt.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            # written at every step of every run (with no default writer: nothing)
            rt.summary.scalar("loss", loss, step=optimizer.iterations)
            total += loss
            batches += 1
        return total / rt.cast(batches, rt.float32)

    return train_epoch


def make_writer(logdir):
    """A summary writer for `logdir` (None: no logging asked for, or no tensorboardX)."""
    if not logdir:
        return None
    try:
        import tensorboardX  # noqa: F401
    except ImportError:
        print("TensorBoard logging off: pip install -e '.[tensorboard]' to write curves")
        return None
    return rt.summary.create_file_writer(logdir)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10, help="epochs to run in this run")
    parser.add_argument("--checkpoint-dir", default="train_checkpoints",
                        help="where checkpoints go; a run resumes from the latest one there")
    parser.add_argument("--logdir", default="train_logs",
                        help="where TensorBoard's event files go ('' for none)")
    args = parser.parse_args(argv)

    x, y = make_data()
    # the same order every epoch: a run resumed from a checkpoint goes on exactly as one
    # that never stopped (a reshuffling pipeline's position is not in the checkpoint)
    dataset = (rt.data.Dataset.from_tensor_slices((x, y))
               .shuffle(N, seed=0, reshuffle_each_iteration=False)
               .batch(64, drop_remainder=True))
    model = MLP()
    optimizer = rt.optimizers.Adam(learning_rate=0.01)
    epoch = rt.Variable(0, dtype=rt.int64, trainable=False, name="epoch")
    train_epoch = make_training(model, optimizer)
    print("variables:", [v.name for v in model.trainable_variables])

    # Keep progress: the model, the optimizer (its step and its slots) and the epoch.
    checkpoint = rt.train.Checkpoint(model=model, optimizer=optimizer, epoch=epoch)
    manager = rt.train.CheckpointManager(checkpoint, args.checkpoint_dir, max_to_keep=3)
    status = checkpoint.restore(manager.latest_checkpoint)   # None: nothing to restore
    if manager.latest_checkpoint:
        # the Adam slots are made on the first step, and get their values then
        status.assert_existing_objects_matched()
        print(f"restored {manager.latest_checkpoint}: epoch {int(epoch.numpy())}, "
              f"step {int(optimizer.iterations.numpy())}")
    else:
        print("no checkpoint: starting from scratch")

    # Curves: one event file per run in the same directory; TensorBoard joins them by step.
    writer = make_writer(args.logdir)
    for _ in range(args.epochs):
        if writer is None:
            loss = float(train_epoch(dataset))
        else:
            with writer.as_default(step=optimizer.iterations):
                loss = float(train_epoch(dataset))
                for v in model.trainable_variables:
                    rt.summary.histogram(v.name.split(":")[0], v)
        epoch.assign_add(1)
        path = manager.save()
        print(f"epoch {int(epoch.numpy()) - 1}: step {int(optimizer.iterations.numpy())} "
              f"loss {loss:.4f}")
    if writer is not None:
        writer.close()
    print("saved", os.path.basename(path))
    accuracy = np.mean(np.argmax(model(rt.constant(x)).numpy(), axis=1) == y)
    print(f"accuracy {accuracy:.3f}")
    print("traced", train_epoch.experimental_get_tracing_count(), "time(s) for",
          args.epochs, "epochs")


if __name__ == "__main__":
    main()
