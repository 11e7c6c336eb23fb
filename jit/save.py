"""``sampan.jit.save(layer_or_function, path, input_spec=None, **configs)``.

For a Layer, every ``@to_static`` method is saved: ``forward`` as
``path.pdmodel`` + ``path.pdiparams`` + ``path.pdiparams.info``, any other one as
``path.<method>.pdmodel`` + ``path.<method>.pdiparams``.  An undecorated
``forward`` is converted with ``input_spec``.  Each method's concrete program
(traced for ``input_spec`` when given, else for the method's own input_spec or
its last call) becomes an inference program with Paddle's layout
(``save_load.prune``: test mode, only what the outputs need, feed/fetch ops,
``save_infer_model/scale_<k>`` output copies).  All the methods' files are written
as one unit (``save_load.atomic_set.write_file_set``): a save killed at any
instant leaves the old model or the new one, never a mix of the two.
The parameters and buffers are the eager tensors bound to the program; the
``.pdiparams.info`` maps each to its structured name in the Layer.

A plain function (``@to_static`` or with ``input_spec``) has no Layer, so no
parameters are saved and no ``.pdiparams.info`` is written (a warning says
so); only tensors its program reads as constants go to ``.pdiparams``.
A ``TranslatedLayer`` (``jit.load``) is saved again from its loaded programs.
Non-tensor arguments keep the values they had when the program was traced.

Every set carries ``path.sampan.json`` (``save_load.manifest``: sizes, sha256 of each
file, dtype/shape/crc32 of each tensor, input/output specs), staged last in the same
atomic set, so loads detect a changed file.  ``verify=True`` (sampan extra) loads the
staged set and runs it against the eager model before it replaces anything
(``jit.save_verify``); a mismatch raises ``SaveVerificationError`` and the old files stay.
"""
import inspect
import os
import warnings

from ..nn.layer.layers import Layer
from ..save_load.atomic_set import write_file_set
from ..save_load.inference_model import model_files, scope_values
from ..save_load.manifest import ManifestBuilder
from ..save_load.params_info import make_entry
from ..save_load.prune import inference_program
from ..program.data import InputSpec
from .save_verify import StagedCheck, function_case, layer_case, translated_case
from .static_function import StaticFunction
from .translated_layer import TranslatedLayer, load, rename_vars

__all__ = ["save", "load", "TranslatedLayer"]

_CONFIGS = {"output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
            "input_names_after_prune", "skip_prune_program", "verify"}


def _check_path(path):
    path = os.fspath(path)
    if path == "" or os.path.basename(path) == "":
        raise ValueError("The input path MUST be format of dirname/file_prefix "
                         f"[dirname\\file_prefix in Windows system], but received {path!r}.")
    if os.path.isdir(path):
        raise ValueError(f"jit.save: {path!r} is a directory; give a path prefix such as "
                         f"'{os.path.join(path, 'model')}'")
    return path


def _static_methods(layer):
    """{name: StaticFunction bound to ``layer``} of its ``@to_static`` methods."""
    found = {}
    forward = layer.__dict__.get("forward")
    if isinstance(forward, StaticFunction):
        found["forward"] = forward
    for klass in type(layer).__mro__:
        for name, attr in vars(klass).items():
            if isinstance(attr, StaticFunction) and name not in found:
                found[name] = getattr(layer, name)
    return found


def _concrete(sf, input_spec):
    if input_spec is not None:
        return sf.get_concrete_program(*input_spec)[0]
    return sf.concrete_program


def _with_layer_hooks(layer, sf):
    """``forward`` with the layer's own forward pre/post hooks traced into its
    program (Paddle's ``with_hook``, on whenever the layer has some): a call
    runs them eagerly around the program (``Layer.__call__``), the saved model
    holds them.  Sublayers' hooks are in the program already."""
    from .convert_runtime import convert_call
    specs = sf.input_spec
    if specs is None and len(sf.program_cache):       # the program traced last, as Paddle
        specs = [InputSpec(v.shape, v.np_dtype, v.name) for v in sf.concrete_program.inputs]
    hooked = StaticFunction(sf.dygraph_function, specs, full_graph=True)
    forward = sf.converted_function

    def run(instance, *args, **kwargs):
        for hook in list(instance._forward_pre_hooks.values()):
            res = convert_call(hook)(instance, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        out = forward(instance, *args, **kwargs)
        for hook in list(instance._forward_post_hooks.values()):
            res = convert_call(hook)(instance, args, out)
            if res is not None:
                out = res
        return out
    hooked._converted = run
    return hooked


def _outputs(concrete, output_spec):
    outs = list(concrete.outputs)
    if output_spec is None:
        return [v.name for v in outs]
    names = [v.name for v in outs]
    picked = []
    for spec in output_spec:
        if isinstance(spec, int) and not isinstance(spec, bool):
            if not 0 <= spec < len(outs):
                raise ValueError(f"output_spec index {spec} is out of range: the program has "
                                 f"{len(outs)} outputs")
            picked.append(names[spec])
            continue
        name = getattr(spec, "name", spec)
        if name not in names:
            raise ValueError(f"The tensor `{name}` does not exists. Please make sure the name "
                             f"of example Tensor in configs.output_spec is the output tensor "
                             f"of Layer; the outputs are {names}")
        picked.append(name)
    return picked


def _structured_names(layer):
    """{tensor name: structured name} of a Layer's parameters and buffers."""
    return {t.name: key for key, t in layer.state_dict().items()
            if getattr(t, "name", None) is not None}


def _info(bound, structured):
    return {name: make_entry(structured.get(name, name), t.stop_gradient,
                             bool(getattr(t, "trainable", False)))
            for name, t in bound.items()}


def _files(prefix, program, feeds, fetches, bound, structured, configs, with_info=True,
           manifest=None, method="forward"):
    """One method's files: ({path: write(fh)}, [paths its new set drops])."""
    infer, _ = inference_program(program, feeds, fetches,
                                 clip_extra=configs.get("clip_extra", True))
    used = {v.name for v in infer.list_vars() if v.persistable}
    infer._bound = {n: t for n, t in bound.items() if n in used}
    params = scope_values(infer)
    info = _info(infer._bound, structured) if with_info and params else None
    infer._bound = {}
    return model_files(prefix, infer, params, info, manifest, method)


def _write_all(path, parts, manifest, cases=None):
    """Write every method's files and their manifest as one set; with ``cases``
    (``verify=True``) the staged set is loaded and checked before it replaces the old."""
    files, drop = {}, []
    for f, d in parts:
        files.update(f)
        drop += d
    check = StagedCheck(path, cases) if cases is not None else None
    return write_file_set(path, manifest.wrap(files), drop, check=check)


def _save_translated(layer, path, configs):
    """Each loaded method's program, its persistables under their saved names again."""
    parts = []
    back = layer._saved_names
    structured = {n: e.get("structured_name", n) for n, e in layer._info.items()}
    tensors = {back.get(n, n): t for n, t in layer._tensors.items()}
    manifest = ManifestBuilder(path)
    cases = [] if configs.get("verify") else None
    for mname, m in layer._methods.items():
        prefix = path if mname == "forward" else f"{path}.{mname}"
        program = m.program.clone()
        program._bound = {}
        rename_vars(program, back)
        names = [back.get(n, n) for n in m.fetches]
        fetches = _outputs_of_names(names, configs.get("output_spec"))
        parts.append(_files(prefix, program, m.feeds, fetches, tensors, structured, configs,
                            with_info=mname == "forward", manifest=manifest, method=mname))
        if cases is not None:
            cases.append(translated_case(layer, mname, names, fetches))
    return _write_all(path, parts, manifest, cases)


def _outputs_of_names(names, output_spec):
    class _C:
        outputs = [type("V", (), {"name": n})() for n in names]
    return _outputs(_C, output_spec)


def save(layer, path, input_spec=None, **configs):
    """Save a Layer's ``@to_static`` methods (or a function) as inference models."""
    unknown = set(configs) - _CONFIGS
    if unknown:
        raise ValueError(f"The additional config ({sorted(unknown)[0]}) of `paddle.jit.save` "
                         f"is not supported.")
    path = _check_path(path)
    if configs.get("combine_params") is False:
        warnings.warn("jit.save: sampan writes parameters combined in one .pdiparams file "
                      "(combine_params=False is not supported)", stacklevel=2)
    if input_spec is not None:
        if not isinstance(input_spec, (list, tuple)):
            raise TypeError(f"input_spec must be a list of InputSpec or Tensors, got "
                            f"{type(input_spec).__name__}")
        input_spec = list(input_spec)
    if isinstance(layer, TranslatedLayer):
        return _save_translated(layer, path, configs)
    if isinstance(layer, Layer):
        methods = _static_methods(layer)
        if "forward" not in methods:
            if input_spec is None:
                raise ValueError(f"jit.save: {type(layer).__name__}.forward is not decorated "
                                 f"with @to_static; pass input_spec to convert it")
            methods = dict(forward=StaticFunction(layer.forward, input_spec), **methods)
        structured = _structured_names(layer)
        parts, manifest = [], ManifestBuilder(path)
        cases = [] if configs.get("verify") else None
        for mname, sf in methods.items():
            if mname == "forward" and (layer._forward_pre_hooks or layer._forward_post_hooks):
                sf = _with_layer_hooks(layer, sf)
            concrete = _concrete(sf, input_spec if mname == "forward" else None)
            prefix = path if mname == "forward" else f"{path}.{mname}"
            picked = _outputs(concrete, configs.get("output_spec"))
            parts.append(_files(prefix, concrete.main_program,
                                [v.name for v in concrete.inputs], picked,
                                concrete.main_program.bound_tensors, structured, configs,
                                with_info=mname == "forward", manifest=manifest,
                                method=mname))
            if cases is not None:
                cases.append(layer_case(layer, mname, concrete, picked,
                                        input_spec if mname == "forward" else None))
        return _write_all(path, parts, manifest, cases)
    if isinstance(layer, StaticFunction) or inspect.isfunction(layer) or \
            inspect.ismethod(layer):
        sf = layer if isinstance(layer, StaticFunction) else StaticFunction(layer, input_spec)
        concrete = _concrete(sf, input_spec)
        bound = concrete.main_program.bound_tensors
        name = getattr(sf, "__name__", "function")
        warnings.warn(f"jit.save: '{name}' is a function, not a Layer: no parameters are "
                      f"saved and no .pdiparams.info is written" +
                      (f" (the {len(bound)} tensor(s) its program reads as constants go to "
                       f".pdiparams)" if bound else ""), stacklevel=2)
        picked = _outputs(concrete, configs.get("output_spec"))
        manifest = ManifestBuilder(path)
        cases = [function_case(sf, concrete, picked, input_spec)] \
            if configs.get("verify") else None
        return _write_all(path, [_files(path, concrete.main_program,
                                        [v.name for v in concrete.inputs], picked, bound,
                                        {}, configs, with_info=False, manifest=manifest)],
                          manifest, cases)
    raise TypeError(f"jit.save needs a Layer, a to_static function or a TranslatedLayer, got "
                    f"{type(layer).__name__}")

