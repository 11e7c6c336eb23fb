"""``paddle.optimizer.LBFGS``: limited-memory BFGS over the flattened
parameters, optionally with a strong-Wolfe line search; Python over tensor
ops, step for step as Paddle 2.6's (eager only: ``step(closure)``, where the
closure clears the gradients, computes the loss, calls ``backward`` and
returns the loss)."""
from collections import defaultdict
from functools import reduce

from ..dygraph.aliases import write_data
from ..dygraph import Tensor, no_grad, enable_grad
from ..ops import in_dynamic_mode
from .. import tensor as T
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimum of the cubic through (x1, f1, g1) and (x2, f2, g2), in bounds."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, c1=1e-4, c2=0.9,
                  tolerance_change=1e-9, max_ls=25):
    """Line search for a step satisfying the strong Wolfe conditions;
    returns (loss, flat grad, step, evaluations)."""
    d_norm = d.abs().max()
    grad = grad.clone()
    loss_new, grad_new = obj_func(xk, alpha, d)
    ls_func_evals = 1
    gtd_new = T.dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = T.to_tensor(0, dtype=grad.dtype), loss, grad, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if loss_new > (loss + c1 * alpha * gtd) or (ls_iter > 1 and loss_new >= f_prev):
            bracket = [t_prev, alpha]
            bracket_f = [f_prev, loss_new]
            bracket_g = [g_prev, grad_new.clone()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if T.abs(gtd_new) <= -c2 * gtd:
            bracket = [alpha]
            bracket_f = [loss_new]
            bracket_g = [grad_new]
            done = True
            break
        if gtd_new >= 0:
            bracket = [t_prev, alpha]
            bracket_f = [f_prev, loss_new]
            bracket_g = [g_prev, grad_new.clone()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        min_step = alpha + 0.01 * (alpha - t_prev)
        max_step = alpha * 10
        tmp = alpha
        alpha = _cubic_interpolate(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new,
                                   bounds=(min_step, max_step))
        t_prev = tmp
        f_prev = loss_new
        g_prev = grad_new.clone()
        gtd_prev = gtd_new
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = grad_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [0, alpha]
        bracket_f = [loss, loss_new]
        bracket_g = [grad, grad_new]

    # zoom
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if T.abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                                   bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if insuf_progress or alpha >= max(bracket) or alpha <= min(bracket):
                if T.abs(alpha - max(bracket)) < T.abs(alpha - min(bracket)):
                    alpha = max(bracket) - eps
                else:
                    alpha = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = grad_new.dot(d)
        ls_iter += 1
        if loss_new > (loss + c1 * alpha * gtd) or loss_new >= bracket_f[low_pos]:
            bracket[high_pos] = alpha
            bracket_f[high_pos] = loss_new
            bracket_g[high_pos] = grad_new.clone()
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if T.abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = alpha
            bracket_f[low_pos] = loss_new
            bracket_g[low_pos] = grad_new.clone()
            bracket_gtd[low_pos] = gtd_new
    alpha = bracket[low_pos]
    loss_new = bracket_f[low_pos]
    grad_new = bracket_g[low_pos]
    return loss_new, grad_new, alpha, ls_func_evals


def _write(dst, src):
    """``paddle.assign(src, dst)`` eagerly: ``dst`` takes ``src``'s values."""
    write_data(dst, src._data.astype(dst._data.dtype, copy=True))


class LBFGS(Optimizer):
    type = "lbfgs"

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        if isinstance(parameters, Tensor):
            raise TypeError("parameters argument given to the optimizer should be an "
                            f"iterable of Tensors or dicts, but got {type(parameters)}")
        self.state = defaultdict(dict)
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        if self._parameter_list is None:
            raise AttributeError("parameters argument given to the Optimizer should not be "
                                 "None in dygraph mode.")
        if not self._grouped:
            self._params = self._parameter_list
        else:
            for group in self._param_groups:
                self._params = group["params"]
        self._numel_cache = None

    def state_dict(self):
        return {"state": dict(self.state.items())}

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = reduce(lambda total, p: total + p.size, self._params, 0)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(T.zeros_like(p).reshape([-1]))
            else:
                views.append(p.grad.reshape([-1]))
        return T.concat(views, axis=0)

    def _add_grad(self, alpha, direction):
        offset = 0
        for p in self._params:
            numel = reduce(lambda x, y: x * y, p.shape) if p.shape != [] else 1
            _write(p, p.add(direction[offset:offset + numel].reshape(p.shape) * alpha))
            offset += numel
        assert offset == self._numel()

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            _write(p, pdata)

    def _directional_evaluate(self, closure, x, alpha, d):
        self._add_grad(alpha, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """One LBFGS step (up to ``max_iter`` iterations); ``closure`` re-evaluates
        the model and returns the loss.  Returns the first loss."""
        if not in_dynamic_mode():
            raise RuntimeError("LBFGS.step only runs in dynamic mode")
        with no_grad():
            closure = enable_grad()(closure)
            learning_rate = self.learning_rate
            max_iter = self.max_iter
            max_eval = self.max_eval
            tolerance_grad = self.tolerance_grad
            tolerance_change = self.tolerance_change
            line_search_fn = self.line_search_fn
            history_size = self.history_size
            state = self.state
            state.setdefault("func_evals", 0)
            state.setdefault("n_iter", 0)

            orig_loss = closure()
            loss = float(orig_loss)
            current_evals = 1
            state["func_evals"] += 1
            flat_grad = self._gather_flat_grad()
            opt_cond = flat_grad.abs().max() <= tolerance_grad
            if opt_cond:
                return orig_loss

            d = state.get("d")
            alpha = state.get("alpha")
            old_yk = state.get("old_yk")
            old_sk = state.get("old_sk")
            ro = state.get("ro")
            H_diag = state.get("H_diag")
            prev_flat_grad = state.get("prev_flat_grad")
            prev_loss = state.get("prev_loss")

            n_iter = 0
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                # the search direction
                if state["n_iter"] == 1:
                    d = flat_grad.neg()
                    old_yk, old_sk, ro = [], [], []
                    H_diag = T.to_tensor(1.0, dtype=orig_loss.dtype)
                else:
                    y = flat_grad.subtract(prev_flat_grad)
                    s = d.multiply(T.to_tensor(alpha, dtype=d.dtype))
                    ys = y.dot(s)
                    if ys > 1e-10:
                        if len(old_yk) == history_size:
                            old_yk.pop(0)
                            old_sk.pop(0)
                            ro.pop(0)
                        old_yk.append(y)
                        old_sk.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / y.dot(y)
                    num_old = len(old_yk)
                    if "al" not in state:
                        state["al"] = [None] * history_size
                    al = state["al"]
                    # two-loop recursion
                    q = flat_grad.neg()
                    for i in range(num_old - 1, -1, -1):
                        al[i] = old_sk[i].dot(q) * ro[i]
                        _write(q, q.add(old_yk[i] * (-al[i])))
                    d = r = T.multiply(q, H_diag)
                    for i in range(num_old):
                        be_i = old_yk[i].dot(r) * ro[i]
                        _write(r, r.add(old_sk[i] * (al[i] - be_i)))

                if prev_flat_grad is None:
                    prev_flat_grad = flat_grad.clone()
                else:
                    _write(prev_flat_grad, flat_grad)
                prev_loss = loss

                # the step length
                if state["n_iter"] == 1:
                    alpha = min(1.0, 1.0 / flat_grad.abs().sum()) * learning_rate
                else:
                    alpha = learning_rate
                gtd = flat_grad.dot(d)
                if gtd > -tolerance_change:
                    break

                ls_func_evals = 0
                if line_search_fn is not None:
                    if line_search_fn != "strong_wolfe":
                        raise RuntimeError("only 'strong_wolfe' is supported")
                    x_init = self._clone_param()

                    def obj_func(x, alpha, d):
                        return self._directional_evaluate(closure, x, alpha, d)

                    loss, flat_grad, alpha, ls_func_evals = _strong_wolfe(
                        obj_func, x_init, alpha, d, loss, flat_grad, gtd)
                    self._add_grad(alpha, d)
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                else:
                    self._add_grad(alpha, d)
                    if n_iter != max_iter:
                        with enable_grad():
                            loss = float(closure())
                        flat_grad = self._gather_flat_grad()
                        opt_cond = flat_grad.abs().max() <= tolerance_grad
                        ls_func_evals = 1
                current_evals += ls_func_evals
                state["func_evals"] += ls_func_evals

                # the stopping conditions
                if opt_cond:
                    break
                if (d * alpha).abs().max() <= tolerance_change:
                    break
                if abs(loss - prev_loss) < tolerance_change:
                    break
                if current_evals >= max_eval:
                    break
                if n_iter == max_iter:
                    break

            state["d"] = d
            state["alpha"] = alpha
            state["old_yk"] = old_yk
            state["old_sk"] = old_sk
            state["ro"] = ro
            state["H_diag"] = H_diag
            state["prev_flat_grad"] = prev_flat_grad
            state["prev_loss"] = prev_loss
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. "
                                  "Please refer 'Examples' of LBFGS() for usage.")
