"""``paddle.nn.Layer``: the base of every layer.

A layer keeps three ordered registries, filled by ``__setattr__`` the way
Paddle does: ``_parameters`` (Parameters), ``_sub_layers`` (Layers) and
``_buffers`` (other Tensors; plain attribute assignment makes a
non-persistable buffer, ``register_buffer`` a persistable one by default).
Names: each instance takes ``unique_name.generate(<class name in snake
case>)`` as its full name (``linear_0``), and its parameters are named after
it (``linear_0.w_0``, ``linear_0.b_0``).  ``state_dict`` keys are structured
names (``fc.weight``, ``bn._mean``).
"""
import re
import warnings
from collections import OrderedDict

import numpy as np

from ...dygraph.aliases import write_data
from ...dygraph.tensor import Tensor, Parameter
from ...dygraph.tensor import wrap
from ...program.variable import Parameter as StaticParameter
from ...kernels.place import backend_of_place
from ...kernels.transform import to_backend
from ...ops.dtypes import to_np_dtype
from ...utils import unique_name
from ..param_attr import make_parameter

# eager Parameters, and the static ones a Layer built in static mode holds
_PARAMETER_TYPES = (Parameter, StaticParameter)

__all__ = ["Layer"]

_FIRST_CAP = re.compile("(.)([A-Z][a-z]+)")
_ALL_CAP = re.compile("([a-z])([A-Z])")


def _camel_to_snake(name):
    """``BatchNorm2D`` -> ``batch_norm2d``, ``Conv2DTranspose`` -> ``conv2d_transpose``."""
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


def _addindent(text, indent):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * indent + ln for ln in lines[1:])


class HookRemoveHelper:
    """Handle returned by the hook registrations; ``remove()`` unregisters."""
    next_hook_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self._hook_id = HookRemoveHelper.next_hook_id
        HookRemoveHelper.next_hook_id += 1

    def remove(self):
        self._hooks.pop(self._hook_id, None)


def set_tensor_value(t, value, what=None):
    """Copy ``value`` (Tensor or array-like) into ``t`` in place of its data,
    checking shape and dtype (Paddle's ``Tensor.set_value`` rules)."""
    arr = value._host() if isinstance(value, Tensor) else np.asarray(value)
    what = what or t.name
    if list(arr.shape) != list(t.shape):
        raise ValueError(f"set_value: '{what}' has shape {list(t.shape)} but the new value "
                         f"has shape {list(arr.shape)}")
    old = t._data
    if arr.dtype != old.dtype:
        raise ValueError(f"set_value: '{what}' has dtype {old.dtype} but the new value has "
                         f"dtype {arr.dtype}")
    # (an ndarray subclass is CPU too: a LazyGuard parameter's Unallocated value)
    backend = "CPU" if isinstance(old, np.ndarray) else "GPU"
    write_data(t, to_backend(np.array(arr, copy=True), backend) if backend != "CPU"
               else np.array(arr, copy=True))


class Layer:
    """Base class of layers (Paddle 2.x ``paddle.nn.Layer``)."""

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        if name_scope is None:
            name_scope = _camel_to_snake(self.__class__.__name__)
        self._full_name = unique_name.generate(name_scope)
        self._built = False
        self._dtype = dtype
        self._parameters = OrderedDict()
        self._buffers = OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._sub_layers = OrderedDict()
        self._loaddict_holder = OrderedDict()
        self._forward_pre_hooks = OrderedDict()
        self._forward_post_hooks = OrderedDict()
        self._state_dict_hooks = OrderedDict()
        self._casted_by_pure_fp16 = False

    # ------------------------------------------------------------ modes
    def train(self):
        self.training = True
        for layer in self.sublayers():
            layer.training = True
        return self

    def eval(self):
        self.training = False
        for layer in self.sublayers():
            layer.training = False
        return self

    def apply(self, fn):
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def full_name(self):
        return self._full_name

    # ------------------------------------------------------------ hooks
    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, outputs)``; a non-None result replaces the outputs."""
        handle = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[handle._hook_id] = hook
        return handle

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)``; a non-None result replaces the inputs (a
        non-tuple result becomes a 1-tuple)."""
        handle = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._hook_id] = hook
        return handle

    def register_state_dict_hook(self, hook):
        """``hook(state_dict)`` runs after ``state_dict()``; a non-None result replaces it."""
        handle = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._hook_id] = hook
        return handle

    # ------------------------------------------------------------ creation
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A parameter named ``<full_name>.w_<n>`` (``.b_<n>`` for biases);
        None when ``attr`` is False.  Not registered: assign it to an attribute
        or pass it to ``add_parameter``."""
        return make_parameter(self._full_name, shape, attr, dtype, is_bias,
                              default_initializer)

    def create_variable(self, name=None, persistable=None, dtype=None):
        return self.create_tensor(name, persistable, dtype)

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """An empty (zero-size) tensor named ``<full_name>.<name>`` or ``_generated_var_<n>``."""
        name = (f"{self._full_name}.{name}" if name is not None
                else unique_name.generate("_generated_var"))
        t = wrap(np.zeros([0], to_np_dtype(dtype or self._dtype)), name=name)
        t.persistable = bool(persistable)
        return t

    def add_sublayer(self, name, sublayer):
        if not (isinstance(sublayer, Layer) or sublayer is None):
            raise TypeError(f"add_sublayer: '{name}' must be a Layer or None, "
                            f"got {type(sublayer).__name__}")
        self._sub_layers[name] = sublayer
        return sublayer

    def add_parameter(self, name, parameter):
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called first")
        _check_attr_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not isinstance(parameter, _PARAMETER_TYPES):
            raise TypeError(f"The parameter to add should be a Parameter, but received "
                            f"{type(parameter).__name__}.")
        self._parameters[name] = parameter
        return parameter

    def register_buffer(self, name, tensor, persistable=True):
        """A tensor kept with the layer (moved by ``to()``); persistable ones
        are part of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        _check_attr_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists.")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"The registered buffer should be a Tensor, but received "
                            f"{type(tensor).__name__}.")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    # ------------------------------------------------------------ walking
    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_parameters(self, prefix="", include_sublayers=True):
        seen = set()
        layers = (self.named_sublayers(prefix=prefix, include_self=True)
                  if include_sublayers else [(prefix, self)])
        for layer_prefix, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (layer_prefix + "." if layer_prefix else "") + key, p

    def sublayers(self, include_self=False):
        return [m for _, m in self.named_sublayers(include_self=include_self)]

    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + key
            yield from layer.named_sublayers(sub_prefix, True, layers_set)

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = (self.named_sublayers(prefix=prefix, include_self=True)
                  if include_sublayers else [(prefix, self)])
        for layer_prefix, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (layer_prefix + "." if layer_prefix else "") + key, b

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    # ------------------------------------------------------------ calling
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def _build_once(self, *args, **kwargs):
        pass

    def __call__(self, *inputs, **kwargs):
        if not self._forward_pre_hooks and not self._forward_post_hooks:
            if not self._built:
                self._build_once(*inputs, **kwargs)
                self._built = True
            return self.forward(*inputs, **kwargs)
        return self._call_with_hooks(inputs, kwargs)

    def _call_with_hooks(self, inputs, kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        if not self._built:
            self._build_once(*inputs, **kwargs)
            self._built = True
        outputs = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    # ------------------------------------------------------------ state
    def _state_dict_impl(self, destination=None, include_sublayers=True,
                         structured_name_prefix="", include_non_persistable_buffer=False,
                         use_hook=True):
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[structured_name_prefix + name] = p
        for name, b in self._buffers.items():
            if b is None:
                continue
            if include_non_persistable_buffer or name not in self._non_persistable_buffer_names_set:
                destination[structured_name_prefix + name] = b
        if include_sublayers:
            for layer_name, layer in self._sub_layers.items():
                if layer is not None:
                    layer._state_dict_impl(destination, True,
                                           structured_name_prefix + layer_name + ".",
                                           include_non_persistable_buffer, use_hook)
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(destination)
                if result is not None:
                    destination = result
        return destination

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True):
        """Parameters and persistable buffers by structured name (``fc.weight``)."""
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix,
                                     False, use_hook)

    def to_static_state_dict(self, destination=None, include_sublayers=True,
                             structured_name_prefix="", use_hook=True):
        """Like ``state_dict`` but with non-persistable buffers too."""
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix,
                                     True, use_hook)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load values by structured name (or by parameter name when
        ``use_structured_name`` is False).  A missing key or a shape mismatch
        skips that entry with a warning naming it (as Paddle does).  Returns
        ``(missing_keys, unexpected_keys)``."""
        missing, matched, pairs = [], set(), []
        for key, target in self._state_dict_impl(use_hook=False).items():
            key_name = key if use_structured_name else target.name
            state = state_dict.get(key_name, None)
            if state is None:
                missing.append(key_name)
                warnings.warn(f"Skip loading for {key}. {key_name} is not found in the "
                              "provided dict.")
                continue
            state_shape = list(state.shape() if callable(getattr(state, "shape", None))
                               else np.shape(state))
            if state_shape != list(target.shape):
                missing.append(key_name)
                warnings.warn(f"Skip loading for {key}. {key_name} receives a shape "
                              f"{state_shape}, but the expected shape is {list(target.shape)}.")
                continue
            matched.add(key_name)
            pairs.append((key, target, state))
        unexpected = [k for k in state_dict.keys() if k not in matched]
        for key, target, state in pairs:
            set_tensor_value(target, state, key)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # ------------------------------------------------------------ placement
    def to(self, device=None, dtype=None, blocking=None):
        """Move parameters and buffers to ``device`` and/or cast them to ``dtype``."""
        return self._to_impl(device, dtype, floating_only=False)

    def _to_impl(self, device=None, dtype=None, floating_only=False, include_sublayers=True):
        if device is None and dtype is None:
            return self
        backend = backend_of_place(device) if device is not None else None
        np_dtype = to_np_dtype(dtype) if dtype is not None else None
        tensors = [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]
        tensors += [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]
        for t in tensors:
            data = t._data
            if np_dtype is not None and (not floating_only or data.dtype.kind == "f"):
                data = data.astype(np_dtype)
            if backend is not None:
                data = to_backend(data, backend)
            if data is not t._data:
                write_data(t, data)
                if t._grad is not None:
                    t._grad = None
        if np_dtype is not None:
            for layer in self.sublayers(include_self=True) if include_sublayers else [self]:
                layer._dtype = np_dtype.name
        return self

    def float(self, excluded_layers=None):
        return self._cast_floats("float32", excluded_layers)

    def double(self, excluded_layers=None):
        return self._cast_floats("float64", excluded_layers)

    def float16(self, excluded_layers=None):
        return self._cast_floats("float16", excluded_layers)

    def _cast_floats(self, dtype, excluded_layers):
        excluded = excluded_layers or []
        if not isinstance(excluded, (list, tuple)):
            excluded = [excluded]
        for layer in self.sublayers(include_self=True):
            if any(isinstance(layer, t) if isinstance(t, type) else layer is t
                   for t in excluded):
                continue
            layer._to_impl(dtype=dtype, floating_only=True, include_sublayers=False)
        return self

    # ------------------------------------------------------------ attributes
    def __getattr__(self, name):
        d = self.__dict__
        for reg in ("_parameters", "_sub_layers", "_buffers"):
            table = d.get(reg)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        params = d.get("_parameters")
        if isinstance(value, _PARAMETER_TYPES):
            if params is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(name, d, self._buffers, self._sub_layers)
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"assignment to parameter '{name}' should be of type "
                                f"Parameter or None, but got '{type(value).__name__}'")
            params[name] = None
            return
        layers = d.get("_sub_layers")
        if isinstance(value, Layer):
            if layers is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(name, d, self._parameters, self._buffers)
            layers[name] = value
            return
        if layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"assignment to sublayer '{name}' should be of type Layer or "
                                f"None, but got '{type(value).__name__}'")
            layers[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, Tensor):
            if buffers is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(name, d, self._parameters, self._sub_layers)
            # only register_buffer makes a persistable buffer
            if name not in buffers:
                self._non_persistable_buffer_names_set.add(name)
            buffers[name] = value
            return
        if buffers is not None and name in buffers:
            if value is not None:
                raise TypeError(f"assignment to buffers '{name}' should be of type Tensor or "
                                f"None, but got '{type(value).__name__}'")
            buffers[name] = None
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._sub_layers:
            del self._sub_layers[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistable_buffer_names_set.discard(name)
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        return (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._sub_layers) + list(self._buffers))

    # ------------------------------------------------------------ printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        sub_lines = [f"({name}): {_addindent(repr(layer), 2)}"
                     for name, layer in self._sub_layers.items()]
        s = type(self).__name__ + "("
        if len(extra_lines) > 1:
            s += "\n  " + "\n  ".join(extra_lines) + "\n"
        elif extra_lines:
            s += extra_lines[0]
        if sub_lines:
            s += "\n  " + "\n  ".join(sub_lines) + "\n"
        return s + ")"


def _remove_from(name, *dicts):
    for d in dicts:
        if name in d:
            del d[name]


def _check_attr_name(name, what):
    if not isinstance(name, str):
        raise TypeError(f"The name of {what} should be a string, but received "
                        f"{type(name).__name__}.")
    if "." in name:
        raise KeyError(f"The name of {what} can not contain `.`, because accessing it as "
                       f"`self.**.**` would be ambiguous.")
    if name == "":
        raise KeyError(f"The name of {what} can not be empty.")
