"""Paddle's global flags (``paddle.set_flags`` / ``paddle.get_flags``).

``FLAGS`` holds every flag of Paddle 2.6.2's CPU build with its default (the
names ``paddle.base.core.globals()`` lists there), so ordinary Paddle code
that sets one runs; an unknown name is refused with Paddle's ValueError.
Most flags tune Paddle's own allocator, executor or distributed runtime and
have no counterpart in sampan: they are stored and read back, nothing more.
The flags sampan honours are listed in ``HONOURED``; the modules that act on
one register a callback with ``on_change`` (called at once with the current
value, then after every change), so no code reads a flag on a hot path.

As in Paddle, a flag is also taken from an environment variable of the same
name when the process starts (``FLAGS_check_nan_inf=1 python train.py``).

Nothing here imports the rest of sampan.
"""
import os

__all__ = ["set_flags", "get_flags", "on_change", "FLAGS", "HONOURED", "GLOBAL_FLAGS",
           "global_flags"]

# what sampan does with the flags it acts on
HONOURED = {
    "FLAGS_check_nan_inf": "every op's floating outputs are checked for NaN/Inf, eagerly "
                           "(forward and backward) and in the executor (kernels/numerics.py)",
    "FLAGS_check_nan_inf_level": "0: a NaN/Inf raises; 1 and above: it is reported on stderr "
                                 "and the run goes on",
}

_DEFAULTS = {
    "FLAGS_add_dependency_for_communication_op": True, "FLAGS_alloc_fill_value": -1,
    "FLAGS_allocator_strategy": "auto_growth", "FLAGS_allreduce_record_one_event": False,
    "FLAGS_apply_pass_to_program": False, "FLAGS_async_trace_count": 5,
    "FLAGS_auto_growth_chunk_size_in_mb": 0, "FLAGS_benchmark": False,
    "FLAGS_cache_inference_while_scope": False, "FLAGS_call_stack_level": 1,
    "FLAGS_check_nan_inf": False, "FLAGS_check_nan_inf_level": 0,
    "FLAGS_communicator_is_sgd_optimizer": True, "FLAGS_communicator_max_merge_var_num": 20,
    "FLAGS_communicator_send_queue_size": 20, "FLAGS_convert_all_blocks": True,
    "FLAGS_cpu_deterministic": False, "FLAGS_dist_threadpool_size": 0,
    "FLAGS_dygraph_debug": 0, "FLAGS_eager_delete_scope": True,
    "FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_einsum_opt": False,
    "FLAGS_enable_adjust_op_order": 0, "FLAGS_enable_all2all_use_fp16": False,
    "FLAGS_enable_api_kernel_fallback": True, "FLAGS_enable_async_trace": False,
    "FLAGS_enable_auto_detect_gpu_topo": True, "FLAGS_enable_auto_rdma_trans": True,
    "FLAGS_enable_dependency_builder_debug_info": False,
    "FLAGS_enable_dump_main_program": False, "FLAGS_enable_exit_when_partial_worker": False,
    "FLAGS_enable_graph_multi_node_sampling": False,
    "FLAGS_enable_neighbor_list_use_uva": False, "FLAGS_enable_opt_get_features": False,
    "FLAGS_enable_pir_api": False, "FLAGS_enable_pir_in_executor": False,
    "FLAGS_enable_pir_in_executor_trace_run": False,
    "FLAGS_enable_pir_with_pt_in_dy2st": True, "FLAGS_enable_record_memory": False,
    "FLAGS_enable_sparse_inner_gather": False, "FLAGS_enable_tracker_all2all": False,
    "FLAGS_enable_unused_var_check": False, "FLAGS_executor_log_deps_every_microseconds": 0,
    "FLAGS_fast_eager_deletion_mode": True, "FLAGS_fleet_executor_with_standalone": False,
    "FLAGS_fraction_of_cpu_memory_to_use": 1.0,
    "FLAGS_fraction_of_cuda_pinned_memory_to_use": 0.5,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.9200000166893005, "FLAGS_free_idle_chunk": False,
    "FLAGS_free_when_no_cache_hit": False, "FLAGS_fuse_parameter_groups_size": 1,
    "FLAGS_fuse_parameter_memory_size": -1.0, "FLAGS_get_host_by_name_time": 120,
    "FLAGS_gpu_allocator_retry_time": 10000, "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_gpugraph_debug_gpu_memory": False, "FLAGS_gpugraph_dedup_pull_push_mode": 0,
    "FLAGS_gpugraph_enable_gpu_direct_access": False,
    "FLAGS_gpugraph_enable_hbm_table_collision_stat": False,
    "FLAGS_gpugraph_enable_print_op_debug": False,
    "FLAGS_gpugraph_enable_segment_merge_grads": False,
    "FLAGS_gpugraph_force_device_batch_num_equal": False,
    "FLAGS_gpugraph_hbm_table_load_factor": 0.75, "FLAGS_gpugraph_load_node_list_into_hbm": True,
    "FLAGS_gpugraph_merge_grads_segment_size": 128,
    "FLAGS_gpugraph_offload_gather_copy_maxsize": 16,
    "FLAGS_gpugraph_offload_param_extends": ".w_0_moment,.b_0_moment",
    "FLAGS_gpugraph_offload_param_stat": 0, "FLAGS_gpugraph_parallel_copyer_split_maxsize": 64,
    "FLAGS_gpugraph_parallel_stream_num": 8, "FLAGS_gpugraph_slot_feasign_max_num": 5,
    "FLAGS_gpugraph_sparse_table_storage_mode": 0, "FLAGS_gpugraph_storage_mode": 1,
    "FLAGS_graph_edges_debug_node_id": 0, "FLAGS_graph_edges_debug_node_num": 2,
    "FLAGS_graph_edges_split_debug": False, "FLAGS_graph_edges_split_mode": "hard",
    "FLAGS_graph_edges_split_only_by_src_id": False,
    "FLAGS_graph_embedding_split_infer_mode": True, "FLAGS_graph_get_neighbor_id": False,
    "FLAGS_graph_load_in_parallel": False, "FLAGS_graph_metapath_split_opt": False,
    "FLAGS_graph_neighbor_size_percent": 1.0, "FLAGS_host_trace_level": 1,
    "FLAGS_init_allocated_mem": False, "FLAGS_initial_cpu_memory_in_mb": 500,
    "FLAGS_initial_gpu_memory_in_mb": 0, "FLAGS_inner_op_parallelism": 0,
    "FLAGS_ir_inplace_kernel_blacklist": "", "FLAGS_jit_engine_type": "Predictor",
    "FLAGS_local_exe_sub_scope_limit": 256.0, "FLAGS_log_memory_stats": False,
    "FLAGS_low_precision_op_list": 0, "FLAGS_max_inplace_grad_add": 0,
    "FLAGS_memory_fraction_of_eager_deletion": 1.0,
    "FLAGS_multi_node_sample_use_gpu_table": True, "FLAGS_multiple_of_cupti_buffer_size": 1,
    "FLAGS_new_executor_sequential_run": False, "FLAGS_new_executor_serial_run": False,
    "FLAGS_new_executor_static_build": False, "FLAGS_new_executor_use_cuda_graph": False,
    "FLAGS_new_executor_use_inplace": False, "FLAGS_new_executor_use_local_scope": True,
    "FLAGS_npu_storage_format": False, "FLAGS_paddle_num_threads": 1,
    "FLAGS_pe_profile_fname": "", "FLAGS_pir_apply_inplace_pass": True,
    "FLAGS_pir_subgraph_saving_dir": "", "FLAGS_prim_enabled": False,
    "FLAGS_print_allocator_trace_info": False, "FLAGS_print_ir": False,
    "FLAGS_print_sub_graph_dir": "", "FLAGS_query_dest_rank_by_multi_node": False,
    "FLAGS_reader_queue_speed_test_mode": False, "FLAGS_reallocate_gpu_memory_in_mb": 0,
    "FLAGS_rocksdb_path": "database", "FLAGS_rpc_send_thread_num": 12,
    "FLAGS_run_kp_kernel": False, "FLAGS_search_cache_max_number": 1000000,
    "FLAGS_set_to_1d": False, "FLAGS_sort_sum_gradient": False,
    "FLAGS_static_executor_perfstat_filepath": "", "FLAGS_sync_after_alloc": False,
    "FLAGS_tensor_operants_mode": "eager", "FLAGS_tracer_mkldnn_ops_off": "",
    "FLAGS_tracer_mkldnn_ops_on": "", "FLAGS_tracer_profile_fname": "xxgperf",
    "FLAGS_trt_ibuilder_cache": False, "FLAGS_use_auto_growth_pinned_allocator": False,
    "FLAGS_use_autotune": False, "FLAGS_use_cuda_managed_memory": False,
    "FLAGS_use_mkldnn": False, "FLAGS_use_pinned_memory": True, "FLAGS_use_shm_cache": False,
    "FLAGS_use_stream_safe_cuda_allocator": True, "FLAGS_use_stride_kernel": True,
    "FLAGS_use_system_allocator": False, "FLAGS_use_virtual_memory_auto_growth": False,
}

FLAGS = dict(_DEFAULTS)
_callbacks = {}


def _parse(name, text):
    """A flag's value from its environment variable (text), as gflags parses it."""
    kind = type(_DEFAULTS[name])
    if kind is bool:
        low = text.strip().lower()
        if low in ("1", "true", "t", "yes", "y"):
            return True
        if low in ("0", "false", "f", "no", "n", ""):
            return False
        raise ValueError(f"environment variable {name}={text!r} is not a boolean")
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"environment variable {name}={text!r} is not a {kind.__name__}") \
            from None


def _convert(name, value):
    """``value`` as the C++ type of the flag: what Paddle's binding accepts
    (a bool flag takes any number's truth, an int flag an int, a float flag a
    number, a string flag a str); anything else is the RuntimeError of its
    failed conversion."""
    kind = type(_DEFAULTS[name])
    ok = {bool: (bool, int, float, type(None)), int: (int,), float: (int, float),
          str: (str,)}[kind]
    if not isinstance(value, ok):
        raise RuntimeError(f"Flag {name}: cannot convert a {type(value).__name__} "
                           f"({value!r}) to its type {kind.__name__}")
    return kind(value) if value is not None else False


def set_flags(flags):
    """Set global flags from a ``{name: value}`` dict (``paddle.set_flags``)."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    for name in flags:
        if name not in FLAGS:
            raise ValueError(f"Flag {name} cannot set its value through this function.")
    values = {name: _convert(name, v) for name, v in flags.items()}
    for name, v in values.items():
        FLAGS[name] = v
        for fn in _callbacks.get(name, ()):
            fn(v)


def get_flags(flags):
    """``{name: value}`` of one flag name or a list/tuple of them (``paddle.get_flags``)."""
    if isinstance(flags, (list, tuple)):
        names = list(flags)
    elif isinstance(flags, str):
        names = [flags]
    else:
        raise TypeError("Flags in get_flags should be a list, tuple or string.")
    out = {}
    for name in names:
        if name not in FLAGS:
            raise ValueError(f"Flag {name} cannot get its value through this function.")
        out[name] = FLAGS[name]
    return out


def on_change(name, fn):
    """Call ``fn(value)`` now and whenever flag ``name`` is set."""
    if name not in FLAGS:
        raise ValueError(f"unknown flag {name}")
    _callbacks.setdefault(name, []).append(fn)
    fn(FLAGS[name])


def _from_environment():
    for name in FLAGS:
        v = os.environ.get(name)
        if v is not None:
            FLAGS[name] = _parse(name, v)


_from_environment()


class GlobalFlags:
    """The flags as a mapping (Paddle's ``core.globals()`` and
    ``paddle.framework._global_flags()``): reading and writing a flag by name
    (writes go through ``set_flags``, so callbacks run), ``keys``, ``get``."""

    def __getitem__(self, name):
        if name not in FLAGS:
            raise RuntimeError(f"(NotFound) Cannot find global variable {name}")
        return FLAGS[name]

    def __setitem__(self, name, value):
        if name not in FLAGS:
            raise RuntimeError(f"(NotFound) Global variable {name} is not writable")
        set_flags({name: value})

    def __contains__(self, name):
        return name in FLAGS

    def keys(self):
        return list(FLAGS)

    def get(self, name, default=None):
        return FLAGS.get(name, default)

    def get_default(self, name):
        return _DEFAULTS[name]

    def is_public(self, name):
        return name in FLAGS


GLOBAL_FLAGS = GlobalFlags()


def global_flags():
    """The flags mapping (``core.globals()``)."""
    return GLOBAL_FLAGS
