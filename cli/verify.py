"""``sampan inspect --verify MODEL``: check a saved model against its manifest
(``save_load.manifest``: every file's size and sha256, every tensor's dtype, shape and
crc32, the input/output names) and load it strictly; prints OK or each problem."""
import os

__all__ = ["cmd_verify"]


def cmd_verify(model, params, out):
    """Print the verdict on the model files ``model`` + ``params``; returns the exit code
    (0: OK, 1: problems)."""
    from ..save_load.manifest import verify_model
    manifest, problems = verify_model(model, params)
    print(f"model: {model}", file=out)
    print(f"params: {params if os.path.isfile(params) else '(no params file)'}", file=out)
    if manifest is None:
        print("manifest: none (no manifest: not written by sampan, or before manifests); "
              "checked the files' format only, a changed weight value cannot be detected",
              file=out)
    else:
        print(f"manifest: {manifest}", file=out)
    if not problems:
        print("OK", file=out)
        return 0
    print(f"FAILED: {len(problems)} problem(s)", file=out)
    for p in problems:
        print(f"  - {p}", file=out)
    return 1
