"""``paddle.linalg`` as a module (``sampan.linalg``): exactly the 26 names of
Paddle 2.6.2's namespace, the functions of linalg_ext.py.  It holds no other
public name, so ``from sampan.linalg import *`` gives those 26 (and
tensor/__init__.py re-exports nothing from it: it has no ``__all__``)."""
from .linalg_ext import (  # noqa: F401
    cholesky, norm, cond, cov, corrcoef, inv, eig, eigvals, multi_dot, matrix_rank, svd, qr,
    householder_product, pca_lowrank, lu, lu_unpack, matrix_power, det, slogdet, eigh,
    eigvalsh, pinv, solve, cholesky_solve, triangular_solve, lstsq)
