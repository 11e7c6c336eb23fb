"""``paddle.distributed.fleet``, its collective subset: ``fleet.init(is_collective=True)``,
``fleet.distributed_model`` (``DataParallel``), ``fleet.distributed_optimizer``
(the optimizer: gradients arrive averaged), the worker queries, and
``DistributedStrategy`` holding the options ordinary scripts set."""
from __future__ import annotations

from ...ops import is_graph_value
from ...program import default_startup_program
from ..env import init_parallel_env, get_rank, get_world_size, world_group
from ..collective import barrier
from ..parallel import DataParallel

__all__ = ["init", "distributed_model", "distributed_optimizer", "DistributedStrategy",
           "worker_index", "worker_num", "is_first_worker", "barrier_worker", "fleet"]


class DistributedStrategy:
    """Options of a fleet job; sampan's data parallelism reads
    ``fuse_grad_size_in_MB`` (DataParallel's ``comm_buffer_size``) and
    ``find_unused_parameters``; the others are kept for the script."""

    def __init__(self):
        self.fuse_grad_size_in_MB = 32
        self.last_comm_group_size_MB = 1
        self.find_unused_parameters = False
        self.amp = False
        self.recompute = False
        self.gradient_merge = False
        self.hybrid_configs = {}

    def __repr__(self):
        return f"DistributedStrategy({vars(self)})"


class _Fleet:
    def __init__(self):
        self._strategy = None
        self._inited = False

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        if not is_collective and role_maker is None:
            raise NotImplementedError(
                "fleet.init: sampan implements collective (data-parallel) training only; "
                "call fleet.init(is_collective=True) (parameter-server mode is not available)")
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise TypeError(f"fleet.init: strategy must be a fleet.DistributedStrategy, got "
                            f"{type(strategy).__name__}")
        self._strategy = strategy or DistributedStrategy()
        init_parallel_env()
        self._inited = True
        return None

    def _need_init(self, what):
        if not self._inited:
            raise RuntimeError(f"fleet.{what}: call fleet.init(is_collective=True) first")

    def distributed_model(self, model):
        self._need_init("distributed_model")
        s = self._strategy
        if world_group().nranks == 1:
            return model
        return DataParallel(model, comm_buffer_size=s.fuse_grad_size_in_MB,
                            last_comm_buffer_size=s.last_comm_group_size_MB,
                            find_unused_parameters=s.find_unused_parameters)

    def distributed_optimizer(self, optimizer, strategy=None):
        """Eagerly the optimizer itself (``distributed_model``'s DataParallel
        averages the gradients); its static ``minimize`` also averages them in
        the program (``c_allreduce_sum``) and broadcasts the initial parameters
        from rank 0 in the startup program (``c_broadcast``), as Paddle's
        collective program optimizer does."""
        self._need_init("distributed_optimizer")
        if strategy is not None:
            self._strategy = strategy
        return _DistributedOptimizer(optimizer)

    def worker_index(self):
        return get_rank()

    def worker_num(self):
        return get_world_size()

    def is_first_worker(self):
        return get_rank() == 0

    def barrier_worker(self):
        barrier()

    def is_worker(self):
        return True

    def is_server(self):
        return False


class _DistributedOptimizer:
    def __init__(self, optimizer):
        self.inner_opt = optimizer

    def __getattr__(self, name):
        return getattr(self.inner_opt, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        nranks = world_group().nranks
        if not is_graph_value(loss) or nranks == 1:
            return self.inner_opt.minimize(loss, startup_program, parameters, no_grad_set)
        params_grads = self.inner_opt.backward(loss, startup_program, parameters, no_grad_set)
        append_gradient_allreduce(loss.block, params_grads, nranks)
        startup = startup_program or default_startup_program()
        append_param_broadcast(startup, [p for p, _ in params_grads])
        return self.inner_opt.apply_gradients(params_grads), params_grads


def append_gradient_allreduce(block, params_grads, nranks, ring_id=0):
    """Average each gradient over the ranks in the program: scale by 1/nranks,
    ``c_allreduce_sum``, then one ``c_sync_comm_stream`` over all of them."""
    grads = [g for _, g in params_grads if g is not None]
    for g in grads:
        block.append_op(type="scale", inputs={"X": [g]}, outputs={"Out": [g]},
                        attrs={"scale": 1.0 / nranks, "bias": 0.0, "bias_after_scale": True})
        block.append_op(type="c_allreduce_sum", inputs={"X": [g]}, outputs={"Out": [g]},
                        attrs={"ring_id": ring_id, "use_calc_stream": True})
    if grads:
        block.append_op(type="c_sync_comm_stream", inputs={"X": grads}, outputs={"Out": grads},
                        attrs={"ring_id": ring_id})


def append_param_broadcast(startup, params, root=0, ring_id=0):
    """Every rank starts from rank ``root``'s initial parameters."""
    block = startup.global_block()
    vs = [block.var(p.name) for p in params]
    for v in vs:
        block.append_op(type="c_broadcast", inputs={"X": [v]}, outputs={"Out": [v]},
                        attrs={"ring_id": ring_id, "root": root, "use_calc_stream": True})
    if vs:
        block.append_op(type="c_sync_comm_stream", inputs={"X": vs}, outputs={"Out": vs},
                        attrs={"ring_id": ring_id})


fleet = _Fleet()
init = fleet.init
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
worker_index = fleet.worker_index
worker_num = fleet.worker_num
is_first_worker = fleet.is_first_worker
barrier_worker = fleet.barrier_worker
