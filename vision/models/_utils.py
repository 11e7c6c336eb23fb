"""What the vision models share: channel rounding, the intermediate-layer
wrapper, and pretrained weights from the local cache.

Pretrained weights are the files Paddle 2.6 downloads (each model module's
``model_urls``: arch -> (url, md5)), looked up where Paddle keeps them,
``~/.cache/paddle/hapi/weights/<file name of the url>`` (``WEIGHTS_HOME``).
sampan never downloads: a missing file (or one whose md5 is not the
expected one) is a RuntimeError saying which file to fetch from where, and
where to put it.
"""
import hashlib
import os
from collections import OrderedDict

from ... import nn
from ...save_load import load
from ...tensor import flatten

__all__ = []

WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))


def _make_divisible(v, divisor=8, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor`` (at least
    ``min_value``, default ``divisor``), never more than 10% below ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _md5(path):
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def weights_path(url, md5sum=None):
    """The cached file of ``url`` (``WEIGHTS_HOME/<basename of url>``), checked
    against ``md5sum`` when given; a clear RuntimeError when it is missing."""
    fname = url.rstrip("/").split("/")[-1]
    path = os.path.join(WEIGHTS_HOME, fname)
    if not os.path.isfile(path):
        raise RuntimeError(
            f"pretrained weights {fname} are not in the local cache: sampan does not "
            f"download, so download {url} and put it at {path} (md5 {md5sum})")
    if md5sum is not None:
        got = _md5(path)
        if got != md5sum:
            raise RuntimeError(
                f"pretrained weights {path} have md5 {got}, expected {md5sum}: the file is "
                f"incomplete or another one; download it again from {url}")
    return path


def load_pretrained(model, arch, model_urls):
    """Load the pretrained weights of ``arch`` (a key of ``model_urls``) into
    ``model``; AssertionError (Paddle's) when there are none for ``arch``."""
    if arch not in model_urls:
        raise AssertionError(f"{arch} model do not have a pretrained model now, you should "
                             f"set pretrained=False")
    url, md5sum = model_urls[arch]
    model.set_state_dict(load(weights_path(url, md5sum)))
    return model


class IntermediateLayerGetter(nn.LayerDict):
    """Run ``model``'s direct children in registration order up to the last
    one named in ``return_layers`` ({child name: output name}) and return an
    OrderedDict of the named outputs.  A 4-D input reaching a Linear child is
    flattened first (as the models' forwards do)."""

    def __init__(self, model, return_layers):
        names = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(names):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        remaining = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            remaining.pop(name, None)
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            subs = module.sublayers()
            if x.ndim == 4 and (isinstance(module, nn.Linear) or
                                (subs and isinstance(subs[0], nn.Linear))):
                x = flatten(x, 1)
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
