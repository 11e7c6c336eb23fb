"""DataLoader cases shared by the tests and by tests/interop/record_io_collate.py (which
runs them in real Paddle 2.6.2): every case gets the framework module, so the
same datasets run in both.  No framework is imported here."""
import numpy as np

N = 5


def map_dataset(paddle, sample):
    class D(paddle.io.Dataset):
        def __len__(self):
            return N

        def __getitem__(self, i):
            return sample(paddle, i)
    return D()


def iter_dataset(paddle, n, shard):
    class It(paddle.io.IterableDataset):
        def __iter__(self):
            info = paddle.io.get_worker_info()
            lo, step = 0, 1
            if shard and info is not None:
                lo, step = info.id, info.num_workers
            for i in range(lo, n, step):
                yield np.array([i, -i], "int64"), float(i)
    return It()


# name -> (sample(paddle, i), DataLoader keyword arguments)
COLLATE = {
    "float": (lambda p, i: float(i) + 0.5, {}),
    "int": (lambda p, i: i, {}),
    "bool": (lambda p, i: bool(i % 2), {}),
    "complex": (lambda p, i: complex(i, 1), {}),
    "np_float64": (lambda p, i: np.ones(3) * i, {}),
    "np_int32": (lambda p, i: np.ones(2, "int32") * i, {}),
    "np_float16": (lambda p, i: np.ones(2, "float16") * i, {}),
    "np_uint8": (lambda p, i: np.ones(2, "uint8") * i, {}),
    "np_0d": (lambda p, i: np.array(i * 1.5), {}),
    "np_scalar_f32": (lambda p, i: np.float32(i), {}),
    "np_scalar_i32": (lambda p, i: np.int32(i), {}),
    "tensor": (lambda p, i: p.ones([2]) * i, {}),
    "tensor_int": (lambda p, i: p.to_tensor([i, i + 1]), {}),
    "tuple": (lambda p, i: (np.ones(2, "float32") * i, i, "a"), {}),
    "list_of_int": (lambda p, i: [i, i + 1], {}),
    "str_and_int": (lambda p, i: (f"s{i}", i), {}),
    "dict": (lambda p, i: {"x": np.ones(2, "float32") * i, "y": i, "n": "z"}, {}),
    "nested": (lambda p, i: {"a": [i, (float(i), np.zeros(1) + i)], "b": {"c": i}}, {}),
    "return_list_false": (lambda p, i: (np.ones(2, "float32") * i, i), {"return_list": False}),
    "drop_last": (lambda p, i: i, {"drop_last": True}),
    "batch_size_none": (lambda p, i: (np.ones(2) * i, i), {"batch_size": None}),
    "batch_size_none_array": (lambda p, i: np.ones(2) * i, {"batch_size": None}),
    "batch_size_none_dict": (lambda p, i: {"a": np.ones(2) * i, "b": 3}, {"batch_size": None}),
    "collate_numbers": (lambda p, i: i, {"collate_fn": lambda b: (np.array(b), sum(b), "x")}),
    "collate_array": (lambda p, i: i, {"collate_fn": lambda b: np.array(b)}),
    "collate_dict": (lambda p, i: i, {"collate_fn": lambda b: {"k": np.array(b), "n": len(b)}}),
    "collate_tensor": (lambda p, i: i, {"collate_fn": None, "tensor_collate": True}),
}


def loader_kwargs(paddle, kwargs):
    kw = dict(kwargs)
    if kw.pop("tensor_collate", False):
        kw["collate_fn"] = lambda b: paddle.to_tensor(b)
    kw.setdefault("batch_size", 2)
    return kw


def describe(paddle, x):
    """A JSON-able picture of a batch: types, dtypes, shapes and values."""
    if isinstance(x, paddle.Tensor):
        a = x.numpy()
        vals = [a.real.tolist(), a.imag.tolist()] if a.dtype.kind == "c" else a.tolist()
        return {"tensor": str(x.dtype).replace("paddle.", ""), "shape": list(x.shape),
                "stop_gradient": bool(x.stop_gradient), "values": vals}
    if isinstance(x, np.ndarray):
        return {"ndarray": str(x.dtype), "shape": list(x.shape), "values": x.tolist()}
    if isinstance(x, dict):
        return {"dict": {k: describe(paddle, v) for k, v in x.items()}}
    if isinstance(x, (list, tuple)):
        return {type(x).__name__: [describe(paddle, v) for v in x]}
    return {"py": type(x).__name__, "value": x}
