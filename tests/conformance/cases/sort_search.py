"""Sorting, searching and statistics: sort/argsort, unique/unique_consecutive,
kthvalue, mode, median/nanmedian, quantile/nanquantile, searchsorted/bucketize,
histogram, bincount, count_nonzero, cummax/cummin, cumprod (and cumprod_),
logcumsumexp, logsumexp, nansum, nanmean, cumsum_.  Each over the dtypes
Paddle's kernels take (and the ones they refuse), as the Tensor method where
Paddle has one, with 0-d inputs, negative axes, NaN (``paddle.log`` of a
negative number), keepdim, and the bad arguments Paddle rejects.  Sorted axes
stay short (at most 16): Paddle's CPU sorts are stable there, as sampan's
are everywhere.
"""
from spec import C

NUM = ("float32", "float64", "int32", "int64")
FLOAT = ("float32", "float64")

CASES = []


def add(id, code, *args, **kw):
    CASES.append(C(id, code, *args, **kw))


# a float tensor with NaN where x < 0
NAN_X = "paddle.log(x)"

# ------------------------------------------------------------ sort / argsort
for dt in NUM + ("bool",):
    add(f"sort.{dt}", "paddle.sort(x, axis=1)", f"{dt}[3,5]")
    add(f"argsort.{dt}", "paddle.argsort(x)", f"{dt}[3,5]")
    add(f"argsort.desc.{dt}", "paddle.argsort(x, axis=0, descending=True)", f"{dt}[4,3]")
add("sort.desc", "paddle.sort(x, descending=True)", "float32[2,6]", grad=True)
add("sort.axis0.grad", "paddle.sort(x, axis=0)", "float64[4,3]", grad=True)
add("sort.neg_axis", "paddle.sort(x, axis=-2)", "float32[3,2,4]")
add("sort.nan", f"paddle.sort({NAN_X})", "float32[3,6]")
add("sort.nan_desc", f"paddle.sort({NAN_X}, descending=True)", "float32[3,6]")
add("argsort.nan", f"paddle.argsort({NAN_X})", "float32[3,6]")
add("argsort.nan_desc", f"paddle.argsort({NAN_X}, descending=True)", "float64[3,6]")
add("sort.0d", "paddle.sort(x)", "float32[]")
add("argsort.0d", "paddle.argsort(x, axis=0)", "float32[]")
add("argsort.0d_bad_axis", "paddle.argsort(x, axis=1)", "float32[]")
add("sort.method", "x.sort(axis=0)", "float32[3,4]")
add("argsort.method", "x.argsort(descending=True)", "int64[3,4]")
add("argsort.bad_axis", "paddle.argsort(x, axis=2)", "float32[3,4]")
add("sort.bad_axis_neg", "paddle.sort(x, axis=-3)", "float32[3,4]")
add("sort.float_axis", "paddle.sort(x, axis=0.5)", "float32[3,4]")

# ------------------------------------------------------------ unique
for dt in NUM + ("bool",):
    add(f"unique.{dt}", "paddle.unique(x)", f"{dt}[3,4]")
    add(f"unique_consecutive.{dt}", "paddle.unique_consecutive(x)", f"{dt}[12]|idx3")
add("unique.all", "paddle.unique(x, return_index=True, return_inverse=True, "
    "return_counts=True)", "int64[3,4]")
add("unique.axis0", "paddle.unique(x, return_index=True, return_inverse=True, "
    "return_counts=True, axis=0)", "int32[5,2]|idx2")
add("unique.axis_neg", "paddle.unique(x, return_inverse=True, axis=-1)", "float32[2,5]")
add("unique.int32_dtype", "paddle.unique(x, return_inverse=True, return_counts=True, "
    "dtype='int32')", "int64[3,4]")
add("unique.float_dtype", "paddle.unique(x, dtype='float32')", "int64[3,4]")
add("unique.bad_axis", "paddle.unique(x, axis=2)", "int64[3,4]")
add("unique.bad_axis_neg", "paddle.unique(x, axis=-3)", "int64[3,4]")
add("unique.0d", "paddle.unique(x, return_index=True)", "float32[]")
add("unique.empty", "paddle.unique(x, return_counts=True)", "float32[0]")
add("unique.method", "x.unique(return_counts=True)", "int64[8]")
add("unique_consecutive.all", "paddle.unique_consecutive(x, return_inverse=True, "
    "return_counts=True)", "int64[12]|idx3")
add("unique_consecutive.axis0", "paddle.unique_consecutive(x, return_inverse=True, "
    "return_counts=True, axis=0)", "int64[6,2]|idx2")
add("unique_consecutive.axis1", "paddle.unique_consecutive(x, return_counts=True, axis=1)",
    "float32[2,4]")
add("unique_consecutive.int32_dtype", "paddle.unique_consecutive(x, return_inverse=True, "
    "dtype='int32')", "int64[2,6]|idx2")
add("unique_consecutive.float_dtype", "paddle.unique_consecutive(x, dtype='float32')",
    "int64[6]")
add("unique_consecutive.bad_axis", "paddle.unique_consecutive(x, axis=5)", "int64[2,3]")
add("unique_consecutive.0d", "paddle.unique_consecutive(x, return_inverse=True, "
    "return_counts=True)", "float32[]")
add("unique_consecutive.method", "x.unique_consecutive(return_counts=True)", "int64[9]|idx2")

# ------------------------------------------------------------ kthvalue / mode
# Paddle's kthvalue picks among tied values with std::nth_element (which tie it
# lands on is the algorithm's accident): with ties only the values are compared
KTH_TIES = "values only: Paddle's nth_element picks an arbitrary index among ties"
for dt in NUM + ("bool",):
    add(f"kthvalue.{dt}", "paddle.kthvalue(x, 2)[0]", f"{dt}[3,5]", note=KTH_TIES)
    add(f"mode.{dt}", "paddle.mode(x)", f"{dt}[3,6]|idx3")
add("kthvalue.indices", "paddle.kthvalue(x, 2)", "float32[3,5]|unit")
add("kthvalue.axis0_keep", "paddle.kthvalue(x, 3, axis=0, keepdim=True)", "float32[4,3]",
    grad=True)
add("kthvalue.neg_axis", "paddle.kthvalue(x, 1, axis=-2)", "float64[3,4]", grad=True)
add("kthvalue.nan", f"paddle.kthvalue({NAN_X}, 4)[0]", "float32[3,6]", note=KTH_TIES)
add("kthvalue.nan_one", "paddle.kthvalue(paddle.log(x), 1)", "float32[3,8]")
add("kthvalue.0d", "paddle.kthvalue(x, 1)", "float32[]")
add("kthvalue.0d_bad_k", "paddle.kthvalue(x, 2)", "float32[]")
add("kthvalue.bad_k", "paddle.kthvalue(x, 6)", "float32[3,5]")
add("kthvalue.zero_k", "paddle.kthvalue(x, 0)", "float32[3,5]")
add("kthvalue.float_k", "paddle.kthvalue(x, 1.5)", "float32[3,5]")
add("kthvalue.bad_axis", "paddle.kthvalue(x, 1, axis=2)", "float32[3,5]")
add("kthvalue.method", "x.kthvalue(2, axis=0)[0]", "int64[4,3]", note=KTH_TIES)
add("mode.grad", "paddle.mode(x, axis=0)", "float64[3,4]", grad=True)
add("mode.keepdim", "paddle.mode(x, axis=1, keepdim=True)", "int32[3,7]|idx3")
add("mode.nan", f"paddle.mode({NAN_X})", "float32[3,6]")
add("mode.0d", "paddle.mode(x)", "float32[]")
add("mode.bad_axis", "paddle.mode(x, axis=-3)", "float32[3,5]")
add("mode.method", "x.mode()", "int64[4,5]|idx2")

# ------------------------------------------------------------ median / nanmedian
for dt in NUM + ("bool",):
    add(f"median.{dt}", "paddle.median(x)", f"{dt}[3,5]")
    add(f"median.axis.{dt}", "paddle.median(x, axis=1)", f"{dt}[3,4]")
    add(f"nanmedian.{dt}", "paddle.nanmedian(x, axis=1)", f"{dt}[3,4]")
add("median.odd.grad", "paddle.median(x, axis=0)", "float64[5,3]", grad=True)
add("median.even.grad", "paddle.median(x, axis=1, keepdim=True)", "float32[3,4]", grad=True)
add("median.all_keep", "paddle.median(x, keepdim=True)", "float32[2,3]")
add("median.nan", f"paddle.median({NAN_X}, axis=-1)", "float32[3,4]")
add("median.0d", "paddle.median(x)", "float32[]")
add("median.0d_axis", "paddle.median(x, axis=0)", "float64[]")
add("median.0d_bad_axis", "paddle.median(x, axis=1)", "float32[]")
add("median.bad_axis", "paddle.median(x, axis=2)", "float32[3,4]")
add("median.list_axis", "paddle.median(x, axis=[0])", "float32[3,4]")
add("median.method", "x.median(axis=0)", "int64[3,4]")
add("nanmedian.all", "paddle.nanmedian(x)", "float32[3,4]")
add("nanmedian.nan", f"paddle.nanmedian({NAN_X}, axis=1)", "float32[4,5]")
add("nanmedian.nan_all", f"paddle.nanmedian({NAN_X})", "float64[3,4]")
add("nanmedian.axes_keep", "paddle.nanmedian(x, axis=[0, 2], keepdim=True)", "float32[2,3,4]")
add("nanmedian.tuple_axis", "paddle.nanmedian(x, axis=(1,))", "float32[3,4]")
add("nanmedian.grad", "paddle.nanmedian(x, axis=-1)", "float64[3,5]", grad=True)
add("nanmedian.even.grad", "paddle.nanmedian(x, axis=0)", "float64[4,3]", grad=True)
add("nanmedian.nan.grad", f"paddle.nanmedian({NAN_X}, axis=1)", "float64[3,6]", grad=True)
add("nanmedian.0d", "paddle.nanmedian(x)", "float32[]")
add("nanmedian.empty_axis", "paddle.nanmedian(x, axis=[])", "float32[3,4]")
add("nanmedian.bad_axis", "paddle.nanmedian(x, axis=3)", "float32[3,4]")
add("nanmedian.dup_axis", "paddle.nanmedian(x, axis=[0, 0])", "float32[3,4]")
add("nanmedian.method", "x.nanmedian(axis=0, keepdim=True)", "int64[3,4]")

# ------------------------------------------------------------ quantile / nanquantile
for dt in NUM + ("bool",):
    add(f"quantile.{dt}", "paddle.quantile(x, 0.5, axis=1)", f"{dt}[3,4]")
    add(f"nanquantile.{dt}", "paddle.nanquantile(x, 0.3)", f"{dt}[3,4]")
add("quantile.all", "paddle.quantile(x, 0.25)", "float32[3,4]", rtol=1e-6)
add("quantile.list_keep", "paddle.quantile(x, [0.3, 0.7], axis=0, keepdim=True)",
    "float64[4,3]")
add("quantile.axes", "paddle.quantile(x, 0.5, axis=[0, 2])", "float32[2,3,4]")
add("quantile.axes_keep", "paddle.quantile(x, [0.1, 0.9], axis=[-1, 0], keepdim=True)",
    "float32[2,3,4]")
add("quantile.empty_axes", "paddle.quantile(x, 0.5, axis=[])", "float32[3,4]")
add("quantile.tuple_q", "paddle.quantile(x, (0.2, 1), axis=-1)", "float32[3,4]")
add("quantile.int_q", "paddle.quantile(x, 0, axis=1)", "float32[3,4]")
add("quantile.nan", f"paddle.quantile({NAN_X}, 0.6, axis=1)", "float32[4,5]")
add("quantile.grad", "paddle.quantile(x, [0.35, 0.8], axis=1)", "float64[3,5]", grad=True)
add("quantile.0d", "paddle.quantile(x, 0.5)", "float32[]")
add("quantile.bad_q", "paddle.quantile(x, 1.5)", "float32[3,4]")
add("quantile.neg_q", "paddle.quantile(x, [0.5, -0.1])", "float32[3,4]")
add("quantile.empty_q", "paddle.quantile(x, [])", "float32[3,4]")
add("quantile.str_q", "paddle.quantile(x, 'a')", "float32[3,4]")
add("quantile.bad_axis", "paddle.quantile(x, 0.5, axis=2)", "float32[3,4]")
add("quantile.bad_list_axis", "paddle.quantile(x, 0.5, axis=[0, 3])", "float32[3,4]")
add("quantile.float_axis", "paddle.quantile(x, 0.5, axis=1.0)", "float32[3,4]")
add("quantile.method", "x.quantile(0.4, axis=0)", "float32[3,4]")
add("nanquantile.nan", f"paddle.nanquantile({NAN_X}, [0.25, 0.5], axis=1)", "float32[4,5]")
add("nanquantile.nan_keep", f"paddle.nanquantile({NAN_X}, 0.5, axis=0, keepdim=True)",
    "float64[5,3]")
add("nanquantile.grad", f"paddle.nanquantile({NAN_X}, 0.4, axis=1)", "float64[3,6]",
    grad=True)
add("nanquantile.method", "x.nanquantile(0.5, axis=-1)", "float32[3,4]")

# ------------------------------------------------------------ searchsorted / bucketize
SORTED = "paddle.sort(x)"
for dt in NUM:
    add(f"searchsorted.{dt}", f"paddle.searchsorted({SORTED}, y)", f"{dt}[6]", f"{dt}[2,3]")
    add(f"bucketize.{dt}", f"paddle.bucketize(y, {SORTED})", f"{dt}[6]", f"{dt}[2,3]")
add("searchsorted.right_int32",
    f"paddle.searchsorted({SORTED}, y, out_int32=True, right=True)", "int64[6]", "int64[3,3]")
add("searchsorted.rows", f"paddle.searchsorted({SORTED}, y)", "float32[2,5]", "float32[2,3]")
add("searchsorted.rows_right", f"paddle.searchsorted({SORTED}, y, right=True)", "int32[2,3,4]",
    "int32[2,3,2]")
add("searchsorted.mixed", f"paddle.searchsorted({SORTED}, y)", "int64[5]", "float32[4]")
add("searchsorted.mixed_rev", f"paddle.searchsorted({SORTED}, y, right=True)", "float64[5]",
    "int32[4]")
add("searchsorted.0d_values", f"paddle.searchsorted({SORTED}, y)", "float32[5]", "float32[]")
add("searchsorted.nan_values", f"paddle.searchsorted({SORTED}, paddle.log(y))", "float32[5]",
    "float32[6]")
add("searchsorted.bool_values", f"paddle.searchsorted({SORTED}, y)", "float32[5]", "bool[3]")
add("searchsorted.float16", "paddle.searchsorted(x, y)", "float16[5]", "float16[3]")
add("searchsorted.0d_seq", "paddle.searchsorted(x, y)", "float32[]", "float32[3]")
add("searchsorted.mismatch", "paddle.searchsorted(x, y)", "float32[2,3]", "float32[3]")
add("searchsorted.mismatch_rows", "paddle.searchsorted(x, y)", "float32[2,3]", "float32[3,2]")
add("bucketize.right_int32", f"paddle.bucketize(y, {SORTED}, out_int32=True, right=True)",
    "float32[5]", "float32[2,3]")
add("bucketize.2d_seq", "paddle.bucketize(y, x)", "float32[2,3]", "float32[3]")
add("bucketize.method", f"y.bucketize({SORTED})", "int64[5]", "int64[4]")

# ------------------------------------------------------------ histogram / bincount
for dt in NUM + ("bool",):
    add(f"histogram.{dt}", "paddle.histogram(x, bins=5)", f"{dt}[3,4]")
    add(f"histogram.range.{dt}", "paddle.histogram(x, bins=4, min=-1, max=2)", f"{dt}[12]")
add("histogram.default_bins", "paddle.histogram(x)", "float32[20]")
add("histogram.one_value", "paddle.histogram(x * 0.0 + 2.0, bins=3)", "float32[4]")
add("histogram.min_eq_max", "paddle.histogram(x, bins=3, min=2, max=2)", "float64[5]")
add("histogram.nan_inside", "paddle.histogram(paddle.log(x), bins=3)", "float32[6]|pos")
add("histogram.0d", "paddle.histogram(x, bins=3)", "float32[]")
add("histogram.empty", "paddle.histogram(x, bins=2)", "float32[0]")
add("histogram.zero_bins", "paddle.histogram(x, bins=0)", "float32[4]")
add("histogram.max_lt_min", "paddle.histogram(x, bins=3, min=3, max=1)", "float32[4]")
add("histogram.float_min", "paddle.histogram(x, bins=3, min=1.5, max=2.5)", "float32[4]")
add("histogram.method", "x.histogram(bins=4)", "int64[3,3]")
for dt in NUM + ("bool",):
    add(f"bincount.{dt}", "paddle.bincount(x)", f"{dt}[8]|idx5")
for dt in NUM + ("bool",):
    add(f"bincount.weights.{dt}", "paddle.bincount(x, weights=y)", "int64[6]|idx4", f"{dt}[6]")
add("bincount.int32_int32", "paddle.bincount(x, weights=y)", "int32[6]|idx4", "int32[6]")
add("bincount.minlength", "paddle.bincount(x, minlength=9)", "int64[6]|idx4")
add("bincount.empty", "paddle.bincount(x)", "int64[0]")
add("bincount.negative", "paddle.bincount(x - 3)", "int64[6]|idx4")
add("bincount.2d", "paddle.bincount(x)", "int64[2,3]|idx4")
add("bincount.0d", "paddle.bincount(x)", "int64[]|idx4")
add("bincount.bad_minlength", "paddle.bincount(x, minlength=-1)", "int64[4]|idx4")
add("bincount.bad_weights", "paddle.bincount(x, weights=y)", "int64[4]|idx4", "float32[3]")
add("bincount.method", "x.bincount(minlength=3)", "int32[5]|idx2")

# ------------------------------------------------------------ count_nonzero
for dt in NUM + ("bool",):
    add(f"count_nonzero.{dt}", "paddle.count_nonzero(x)", f"{dt}[3,4]|any")
    add(f"count_nonzero.axis.{dt}", "paddle.count_nonzero(x, axis=1, keepdim=True)",
        f"{dt}[3,4]|any")
add("count_nonzero.axes", "paddle.count_nonzero(x, axis=[0, 2])", "float32[2,3,2]|any")
add("count_nonzero.nan", "paddle.count_nonzero(paddle.log(x))", "float32[6]|any")
add("count_nonzero.bad_axis", "paddle.count_nonzero(x, axis=3)", "float32[3,4]")
add("count_nonzero.method", "x.count_nonzero(axis=0)", "int64[3,4]|any")

# ------------------------------------------------------------ cummax / cummin
for fn in ("cummax", "cummin"):
    for dt in NUM + ("bool",):
        add(f"{fn}.{dt}", f"paddle.{fn}(x, axis=1)", f"{dt}[3,5]")
    add(f"{fn}.flat", f"paddle.{fn}(x)", "float32[3,4]")
    add(f"{fn}.grad", f"paddle.{fn}(x, axis=0)", "float64[4,3]", grad=True)
    add(f"{fn}.int32_idx", f"paddle.{fn}(x, axis=-1, dtype='int32')", "int64[2,6]|idx3")
    add(f"{fn}.nan", f"paddle.{fn}({NAN_X}, axis=1)", "float32[3,6]")
    add(f"{fn}.0d", f"paddle.{fn}(x)", "float32[]")
    add(f"{fn}.0d_axis", f"paddle.{fn}(x, axis=0)", "float32[]")
    add(f"{fn}.bad_axis", f"paddle.{fn}(x, axis=2)", "float32[3,4]")
    add(f"{fn}.bad_dtype", f"paddle.{fn}(x, dtype='float32')", "float32[3,4]")
    add(f"{fn}.float_axis", f"paddle.{fn}(x, axis=1.0)", "float32[3,4]")
    add(f"{fn}.method", f"x.{fn}(axis=0)", "int64[3,4]")

# ------------------------------------------------------------ cumprod
for dt in NUM + ("bool",):
    add(f"cumprod.{dt}", "paddle.cumprod(x, dim=1)", f"{dt}[3,4]")
add("cumprod.grad", "paddle.cumprod(x, dim=0)", "float64[4,3]", grad=True)
add("cumprod.zeros.grad", "paddle.cumprod(x * (x > 0.5).astype('float64'), dim=1)",
    "float64[3,5]", grad=True)
add("cumprod.dtype", "paddle.cumprod(x, dim=-1, dtype='float64')", "int32[2,3]")
add("cumprod.0d", "paddle.cumprod(x, dim=0)", "float32[]")
add("cumprod.0d_bad_dim", "paddle.cumprod(x, dim=1)", "float32[]")
add("cumprod.no_dim", "paddle.cumprod(x)", "float32[3,4]")
add("cumprod.bad_dim", "paddle.cumprod(x, dim=2)", "float32[3,4]")
add("cumprod.method", "x.cumprod(0)", "float32[3,4]")
add("cumprod_.fn", "y = paddle.cumprod_(x, dim=1)\nreturn y", "float32[3,4]")
add("cumprod_.method_returns_x", "x.cumprod_(0)\nreturn x", "int64[3,4]")
add("cumsum_.fn", "y = paddle.cumsum_(x, axis=1)\nreturn y", "float32[3,4]")
add("cumsum_.method_returns_x", "x.cumsum_()\nreturn x", "int64[3,4]")
add("cumsum_.dtype", "x.cumsum_(axis=0, dtype='float64')\nreturn x", "float32[3,4]")

# ------------------------------------------------------------ logcumsumexp / logsumexp
for dt in NUM:
    add(f"logcumsumexp.{dt}", "paddle.logcumsumexp(x, axis=1)", f"{dt}[3,4]")
    add(f"logsumexp.{dt}", "paddle.logsumexp(x, axis=1)", f"{dt}[3,4]")
add("logcumsumexp.flat", "paddle.logcumsumexp(x)", "float32[3,4]")
add("logcumsumexp.grad", "paddle.logcumsumexp(x, axis=0)", "float64[4,3]", grad=True)
add("logcumsumexp.flat.grad", "paddle.logcumsumexp(x)", "float64[2,3]", grad=True)
add("logcumsumexp.dtype", "paddle.logcumsumexp(x, axis=-1, dtype='float64')", "int64[2,3]")
add("logcumsumexp.neg_inf", "paddle.logcumsumexp(paddle.log(x * 0.0), axis=0)", "float32[3]")
add("logcumsumexp.0d", "paddle.logcumsumexp(x)", "float32[]")
add("logcumsumexp.0d_axis", "paddle.logcumsumexp(x, axis=0)", "float32[]")
add("logcumsumexp.bad_axis", "paddle.logcumsumexp(x, axis=3)", "float32[3,4]")
add("logcumsumexp.method", "x.logcumsumexp(axis=1)", "float32[3,4]")
add("logsumexp.all", "paddle.logsumexp(x)", "float32[3,4]", grad=True)
add("logsumexp.grad", "paddle.logsumexp(x, axis=[0, 2], keepdim=True)", "float64[2,3,4]",
    grad=True)
add("logsumexp.tuple_axis", "paddle.logsumexp(x, axis=(0,))", "float32[3,4]")
add("logsumexp.dup_axis", "paddle.logsumexp(x, axis=[0, 0])", "float32[3,4]")
add("logsumexp.neg_axis", "paddle.logsumexp(x, axis=-1, keepdim=True)", "float64[3,4]")
add("logsumexp.large", "paddle.logsumexp(x * 1000.0, axis=1)", "float32[2,3]")
add("logsumexp.neg_inf", "paddle.logsumexp(paddle.log(x * 0.0))", "float32[3]")
add("logsumexp.0d", "paddle.logsumexp(x)", "float32[]")
add("logsumexp.bad_axis", "paddle.logsumexp(x, axis=2)", "float32[3,4]")
add("logsumexp.float_axis", "paddle.logsumexp(x, axis=0.5)", "float32[3,4]")
add("logsumexp.method", "x.logsumexp(axis=0)", "float32[3,4]")

# ------------------------------------------------------------ nansum / nanmean
for dt in NUM + ("bool",):
    add(f"nansum.{dt}", "paddle.nansum(x)", f"{dt}[3,4]")
    add(f"nanmean.{dt}", "paddle.nanmean(x, axis=1)", f"{dt}[3,4]")
add("nansum.nan", f"paddle.nansum({NAN_X}, axis=1)", "float32[3,4]")
add("nansum.nan.grad", f"paddle.nansum({NAN_X}, axis=0, keepdim=True)", "float64[3,4]",
    grad=True)
add("nansum.dtype", "paddle.nansum(x, dtype='float64')", "float32[3,4]")
add("nansum.axes", "paddle.nansum(x, axis=[0, 2])", "float32[2,3,2]")
add("nansum.bad_axis", "paddle.nansum(x, axis=3)", "float32[3,4]")
add("nansum.method", "x.nansum(axis=-1)", "float64[3,4]")
add("nanmean.nan", f"paddle.nanmean({NAN_X})", "float32[3,4]")
add("nanmean.nan_axis", f"paddle.nanmean({NAN_X}, axis=[0, 1], keepdim=True)", "float64[3,4]")
add("nanmean.all_nan", "paddle.nanmean(paddle.log(x * 0.0 - 1.0), axis=0)", "float32[2,3]")
add("nanmean.nan.grad", f"paddle.nanmean({NAN_X}, axis=1)", "float64[3,4]", grad=True)
add("nanmean.bad_axis", "paddle.nanmean(x, axis=3)", "float32[3,4]")
add("nanmean.method", "x.nanmean()", "float32[3,4]")
