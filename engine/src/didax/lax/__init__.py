"""`didax.lax`: the primitive operations, with JAX's `jax.lax` signatures."""

from didax._src.lax.bitcast import (
    bitcast_convert_type as bitcast_convert_type,
)
from didax._src.lax.bitcast import (
    bitcast_convert_type_p as bitcast_convert_type_p,
)
from didax._src.lax.collectives import all_to_all as all_to_all
from didax._src.lax.collectives import all_to_all_p as all_to_all_p
from didax._src.lax.collectives import axis_size_of as axis_size
from didax._src.lax.collectives import pcast as pcast
from didax._src.lax.collectives import ppermute as ppermute
from didax._src.lax.collectives import ppermute_p as ppermute_p
from didax._src.lax.collectives import psum_scatter as psum_scatter
from didax._src.lax.collectives import pvary as pvary
from didax._src.lax.collectives import reduce_scatter_p as reduce_scatter_p
from didax._src.lax.control_flow import (
    associative_scan as associative_scan,
)
from didax._src.lax.control_flow import (
    cond as cond,
)
from didax._src.lax.control_flow import (
    cond_p as cond_p,
)
from didax._src.lax.control_flow import (
    fori_loop as fori_loop,
)
from didax._src.lax.control_flow import (
    map as map,
)
from didax._src.lax.control_flow import (
    reduce as reduce,
)
from didax._src.lax.control_flow import (
    reduce_p as reduce_p,
)
from didax._src.lax.control_flow import (
    scan as scan,
)
from didax._src.lax.control_flow import (
    scan_p as scan_p,
)
from didax._src.lax.control_flow import (
    switch as switch,
)
from didax._src.lax.control_flow import (
    while_loop as while_loop,
)
from didax._src.lax.control_flow import (
    while_p as while_p,
)
from didax._src.lax.convolution import ConvDimensionNumbers as ConvDimensionNumbers
from didax._src.lax.convolution import conv as conv
from didax._src.lax.convolution import conv_dimension_numbers as conv_dimension_numbers
from didax._src.lax.convolution import conv_general_dilated as conv_general_dilated
from didax._src.lax.convolution import conv_general_dilated_p as conv_general_dilated_p
from didax._src.lax.convolution import conv_general_permutations as conv_general_permutations
from didax._src.lax.convolution import conv_general_shape_tuple as conv_general_shape_tuple
from didax._src.lax.convolution import conv_shape_tuple as conv_shape_tuple
from didax._src.lax.convolution import conv_transpose as conv_transpose
from didax._src.lax.convolution import conv_transpose_shape_tuple as conv_transpose_shape_tuple
from didax._src.lax.convolution import conv_with_general_padding as conv_with_general_padding
from didax._src.lax.fft import FftType as FftType
from didax._src.lax.fft import fft as fft
from didax._src.lax.fft import fft_p as fft_p
from didax._src.lax.lax import (
    RoundingMethod as RoundingMethod,
)
from didax._src.lax.lax import (
    abs as abs,
)
from didax._src.lax.lax import (
    abs_p as abs_p,
)
from didax._src.lax.lax import (
    acos as acos,
)
from didax._src.lax.lax import (
    acosh as acosh,
)
from didax._src.lax.lax import (
    add as add,
)
from didax._src.lax.lax import (
    add_any_p as add_any_p,
)
from didax._src.lax.lax import (
    add_p as add_p,
)
from didax._src.lax.lax import (
    asin as asin,
)
from didax._src.lax.lax import (
    asinh as asinh,
)
from didax._src.lax.lax import (
    atan as atan,
)
from didax._src.lax.lax import (
    atan2 as atan2,
)
from didax._src.lax.lax import (
    atanh as atanh,
)
from didax._src.lax.lax import (
    betainc as betainc,
)
from didax._src.lax.lax import (
    bitwise_and as bitwise_and,
)
from didax._src.lax.lax import (
    bitwise_not as bitwise_not,
)
from didax._src.lax.lax import (
    bitwise_or as bitwise_or,
)
from didax._src.lax.lax import (
    bitwise_xor as bitwise_xor,
)
from didax._src.lax.lax import (
    cbrt as cbrt,
)
from didax._src.lax.lax import (
    ceil as ceil,
)
from didax._src.lax.lax import (
    clamp as clamp,
)
from didax._src.lax.lax import (
    clz as clz,
)
from didax._src.lax.lax import (
    complex as complex,
)
from didax._src.lax.lax import (
    conj as conj,
)
from didax._src.lax.lax import (
    convert_element_type as convert_element_type,
)
from didax._src.lax.lax import (
    convert_element_type_p as convert_element_type_p,
)
from didax._src.lax.lax import (
    cos as cos,
)
from didax._src.lax.lax import (
    cos_p as cos_p,
)
from didax._src.lax.lax import (
    cosh as cosh,
)
from didax._src.lax.lax import (
    digamma as digamma,
)
from didax._src.lax.lax import (
    div as div,
)
from didax._src.lax.lax import (
    div_p as div_p,
)
from didax._src.lax.lax import (
    eq as eq,
)
from didax._src.lax.lax import (
    erf as erf,
)
from didax._src.lax.lax import (
    erf_inv as erf_inv,
)
from didax._src.lax.lax import (
    exp as exp,
)
from didax._src.lax.lax import (
    exp2 as exp2,
)
from didax._src.lax.lax import (
    exp_p as exp_p,
)
from didax._src.lax.lax import (
    expm1 as expm1,
)
from didax._src.lax.lax import (
    floor as floor,
)
from didax._src.lax.lax import (
    ge as ge,
)
from didax._src.lax.lax import (
    gt as gt,
)
from didax._src.lax.lax import (
    igamma as igamma,
)
from didax._src.lax.lax import (
    igammac as igammac,
)
from didax._src.lax.lax import (
    imag as imag,
)
from didax._src.lax.lax import (
    integer_pow as integer_pow,
)
from didax._src.lax.lax import (
    is_finite as is_finite,
)
from didax._src.lax.lax import (
    le as le,
)
from didax._src.lax.lax import (
    lgamma as lgamma,
)
from didax._src.lax.lax import (
    log as log,
)
from didax._src.lax.lax import (
    log1p as log1p,
)
from didax._src.lax.lax import (
    log_p as log_p,
)
from didax._src.lax.lax import (
    logistic as logistic,
)
from didax._src.lax.lax import (
    lt as lt,
)
from didax._src.lax.lax import (
    max as max,
)
from didax._src.lax.lax import (
    max_p as max_p,
)
from didax._src.lax.lax import (
    min as min,
)
from didax._src.lax.lax import (
    min_p as min_p,
)
from didax._src.lax.lax import (
    mul as mul,
)
from didax._src.lax.lax import (
    mul_p as mul_p,
)
from didax._src.lax.lax import (
    ne as ne,
)
from didax._src.lax.lax import (
    neg as neg,
)
from didax._src.lax.lax import (
    neg_p as neg_p,
)
from didax._src.lax.lax import (
    nextafter as nextafter,
)
from didax._src.lax.lax import (
    polygamma as polygamma,
)
from didax._src.lax.lax import (
    population_count as population_count,
)
from didax._src.lax.lax import (
    pow as pow,
)
from didax._src.lax.lax import (
    real as real,
)
from didax._src.lax.lax import (
    reciprocal as reciprocal,
)
from didax._src.lax.lax import (
    reduce_precision as reduce_precision,
)
from didax._src.lax.lax import (
    rem as rem,
)
from didax._src.lax.lax import (
    round as round,
)
from didax._src.lax.lax import (
    rsqrt as rsqrt,
)
from didax._src.lax.lax import (
    select as select,
)
from didax._src.lax.lax import (
    select_n as select_n,
)
from didax._src.lax.lax import (
    select_n_p as select_n_p,
)
from didax._src.lax.lax import (
    shift_left as shift_left,
)
from didax._src.lax.lax import (
    shift_right_arithmetic as shift_right_arithmetic,
)
from didax._src.lax.lax import (
    shift_right_logical as shift_right_logical,
)
from didax._src.lax.lax import (
    sign as sign,
)
from didax._src.lax.lax import (
    sin as sin,
)
from didax._src.lax.lax import (
    sin_p as sin_p,
)
from didax._src.lax.lax import (
    sinh as sinh,
)
from didax._src.lax.lax import (
    sqrt as sqrt,
)
from didax._src.lax.lax import (
    square as square,
)
from didax._src.lax.lax import (
    stop_gradient as stop_gradient,
)
from didax._src.lax.lax import (
    stop_gradient_p as stop_gradient_p,
)
from didax._src.lax.lax import (
    sub as sub,
)
from didax._src.lax.lax import (
    sub_p as sub_p,
)
from didax._src.lax.lax import (
    tan as tan,
)
from didax._src.lax.lax import (
    tanh as tanh,
)
from didax._src.lax.lax import (
    tanh_p as tanh_p,
)
from didax._src.lax.lax import (
    zeta as zeta,
)
from didax._src.lax.parallel import (
    all_gather as all_gather,
)
from didax._src.lax.parallel import (
    all_gather_p as all_gather_p,
)
from didax._src.lax.parallel import (
    axis_index as axis_index,
)
from didax._src.lax.parallel import (
    axis_index_p as axis_index_p,
)
from didax._src.lax.parallel import (
    pmax as pmax,
)
from didax._src.lax.parallel import (
    pmax_p as pmax_p,
)
from didax._src.lax.parallel import (
    pmean as pmean,
)
from didax._src.lax.parallel import (
    pmin as pmin,
)
from didax._src.lax.parallel import (
    pmin_p as pmin_p,
)
from didax._src.lax.parallel import (
    psum as psum,
)
from didax._src.lax.parallel import (
    psum_p as psum_p,
)
from didax._src.lax.reductions import Precision as Precision
from didax._src.lax.reductions import (
    argmax as argmax,
)
from didax._src.lax.reductions import (
    argmin as argmin,
)
from didax._src.lax.reductions import (
    cumlogsumexp as cumlogsumexp,
)
from didax._src.lax.reductions import (
    cummax as cummax,
)
from didax._src.lax.reductions import (
    cummin as cummin,
)
from didax._src.lax.reductions import (
    cumprod as cumprod,
)
from didax._src.lax.reductions import (
    cumsum as cumsum,
)
from didax._src.lax.reductions import (
    dot as dot,
)
from didax._src.lax.reductions import (
    dot_general as dot_general,
)
from didax._src.lax.reductions import (
    dot_general_p as dot_general_p,
)
from didax._src.lax.reductions import (
    reduce_and as reduce_and,
)
from didax._src.lax.reductions import (
    reduce_max as reduce_max,
)
from didax._src.lax.reductions import (
    reduce_max_p as reduce_max_p,
)
from didax._src.lax.reductions import (
    reduce_min as reduce_min,
)
from didax._src.lax.reductions import (
    reduce_or as reduce_or,
)
from didax._src.lax.reductions import (
    reduce_prod as reduce_prod,
)
from didax._src.lax.reductions import (
    reduce_sum as reduce_sum,
)
from didax._src.lax.reductions import (
    reduce_sum_p as reduce_sum_p,
)
from didax._src.lax.reductions import (
    reduce_xor as reduce_xor,
)
from didax._src.lax.reductions import (
    sort as sort,
)
from didax._src.lax.reductions import (
    sort_key_val as sort_key_val,
)
from didax._src.lax.shapes import (
    broadcast as broadcast,
)
from didax._src.lax.shapes import (
    broadcast_in_dim as broadcast_in_dim,
)
from didax._src.lax.shapes import (
    broadcast_in_dim_p as broadcast_in_dim_p,
)
from didax._src.lax.shapes import (
    broadcast_like as broadcast_like,
)
from didax._src.lax.shapes import (
    broadcasted_iota as broadcasted_iota,
)
from didax._src.lax.shapes import (
    concatenate as concatenate,
)
from didax._src.lax.shapes import (
    dynamic_index_in_dim as dynamic_index_in_dim,
)
from didax._src.lax.shapes import (
    dynamic_slice as dynamic_slice,
)
from didax._src.lax.shapes import (
    dynamic_slice_in_dim as dynamic_slice_in_dim,
)
from didax._src.lax.shapes import (
    dynamic_update_index_in_dim as dynamic_update_index_in_dim,
)
from didax._src.lax.shapes import (
    dynamic_update_slice as dynamic_update_slice,
)
from didax._src.lax.shapes import (
    dynamic_update_slice_in_dim as dynamic_update_slice_in_dim,
)
from didax._src.lax.shapes import (
    expand_dims as expand_dims,
)
from didax._src.lax.shapes import (
    full as full,
)
from didax._src.lax.shapes import (
    full_like as full_like,
)
from didax._src.lax.shapes import (
    index_in_dim as index_in_dim,
)
from didax._src.lax.shapes import (
    iota as iota,
)
from didax._src.lax.shapes import (
    pad as pad,
)
from didax._src.lax.shapes import (
    reshape as reshape,
)
from didax._src.lax.shapes import (
    rev as rev,
)
from didax._src.lax.shapes import (
    slice as slice,
)
from didax._src.lax.shapes import (
    slice_in_dim as slice_in_dim,
)
from didax._src.lax.shapes import (
    split as split,
)
from didax._src.lax.shapes import (
    squeeze as squeeze,
)
from didax._src.lax.shapes import (
    transpose as transpose,
)
from didax._src.lax.slicing import (
    GatherDimensionNumbers as GatherDimensionNumbers,
)
from didax._src.lax.slicing import (
    GatherScatterMode as GatherScatterMode,
)
from didax._src.lax.slicing import (
    ScatterDimensionNumbers as ScatterDimensionNumbers,
)
from didax._src.lax.slicing import (
    gather as gather,
)
from didax._src.lax.slicing import (
    gather_p as gather_p,
)
from didax._src.lax.slicing import (
    scatter as scatter,
)
from didax._src.lax.slicing import (
    scatter_add as scatter_add,
)
from didax._src.lax.slicing import (
    scatter_add_p as scatter_add_p,
)
from didax._src.lax.slicing import (
    scatter_apply as scatter_apply,
)
from didax._src.lax.slicing import (
    scatter_max as scatter_max,
)
from didax._src.lax.slicing import (
    scatter_max_p as scatter_max_p,
)
from didax._src.lax.slicing import (
    scatter_min as scatter_min,
)
from didax._src.lax.slicing import (
    scatter_min_p as scatter_min_p,
)
from didax._src.lax.slicing import (
    scatter_mul as scatter_mul,
)
from didax._src.lax.slicing import (
    scatter_mul_p as scatter_mul_p,
)
from didax._src.lax.slicing import (
    scatter_p as scatter_p,
)
from didax._src.lax.slicing import (
    scatter_sub as scatter_sub,
)
from didax._src.lax.slicing import (
    scatter_sub_p as scatter_sub_p,
)
from didax._src.lax.special import erfc as erfc
from didax._src.lax.stacking import (
    stack as stack,
)
from didax._src.lax.stacking import (
    tile as tile,
)
from didax._src.lax.stacking import (
    unstack as unstack,
)
from didax._src.lax.topk import approx_max_k as approx_max_k
from didax._src.lax.topk import approx_min_k as approx_min_k
from didax._src.lax.topk import batch_matmul as batch_matmul
from didax._src.lax.topk import broadcast_shapes as broadcast_shapes
from didax._src.lax.topk import collapse as collapse
from didax._src.lax.topk import top_k as top_k
from didax._src.lax.topk import top_k_p as top_k_p
from didax._src.lax.windowed_reductions import reduce_window as reduce_window
from didax._src.lax.windowed_reductions import reduce_window_max_p as reduce_window_max_p
from didax._src.lax.windowed_reductions import reduce_window_min_p as reduce_window_min_p
from didax._src.lax.windowed_reductions import reduce_window_p as reduce_window_p
from didax._src.lax.windowed_reductions import (
    reduce_window_shape_tuple as reduce_window_shape_tuple,
)
from didax._src.lax.windowed_reductions import reduce_window_sum_p as reduce_window_sum_p
from didax._src.lax.windowed_reductions import select_and_gather_add_p as select_and_gather_add_p
from didax._src.lax.windowed_reductions import select_and_scatter_add_p as select_and_scatter_add_p
from didax._src.lax.windowing import padtype_to_pads as padtype_to_pads
from didax._src.linear_solve import custom_linear_solve as custom_linear_solve
from didax._src.linear_solve import custom_root as custom_root
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# The primitive objects jax.lax exports (user interpreters key rules on them).
from didax.extend.core.primitives import (  # noqa: E402
    acos_p as acos_p,
)
from didax.extend.core.primitives import (
    acosh_p as acosh_p,
)
from didax.extend.core.primitives import (
    and_p as and_p,
)
from didax.extend.core.primitives import (
    argmax_p as argmax_p,
)
from didax.extend.core.primitives import (
    argmin_p as argmin_p,
)
from didax.extend.core.primitives import (
    asin_p as asin_p,
)
from didax.extend.core.primitives import (
    asinh_p as asinh_p,
)
from didax.extend.core.primitives import (
    atan2_p as atan2_p,
)
from didax.extend.core.primitives import (
    atan_p as atan_p,
)
from didax.extend.core.primitives import (
    atanh_p as atanh_p,
)
from didax.extend.core.primitives import (
    cbrt_p as cbrt_p,
)
from didax.extend.core.primitives import (
    ceil_p as ceil_p,
)
from didax.extend.core.primitives import (
    clamp_p as clamp_p,
)
from didax.extend.core.primitives import (
    clz_p as clz_p,
)
from didax.extend.core.primitives import (
    complex_p as complex_p,
)
from didax.extend.core.primitives import (
    concatenate_p as concatenate_p,
)
from didax.extend.core.primitives import (
    conj_p as conj_p,
)
from didax.extend.core.primitives import (
    cosh_p as cosh_p,
)
from didax.extend.core.primitives import (
    cumlogsumexp_p as cumlogsumexp_p,
)
from didax.extend.core.primitives import (
    cummax_p as cummax_p,
)
from didax.extend.core.primitives import (
    cummin_p as cummin_p,
)
from didax.extend.core.primitives import (
    cumprod_p as cumprod_p,
)
from didax.extend.core.primitives import (
    cumsum_p as cumsum_p,
)
from didax.extend.core.primitives import (
    digamma_p as digamma_p,
)
from didax.extend.core.primitives import (
    dynamic_slice_p as dynamic_slice_p,
)
from didax.extend.core.primitives import (
    dynamic_update_slice_p as dynamic_update_slice_p,
)
from didax.extend.core.primitives import (
    eq_p as eq_p,
)
from didax.extend.core.primitives import (
    erf_inv_p as erf_inv_p,
)
from didax.extend.core.primitives import (
    erf_p as erf_p,
)
from didax.extend.core.primitives import (
    erfc_p as erfc_p,
)
from didax.extend.core.primitives import (
    exp2_p as exp2_p,
)
from didax.extend.core.primitives import (
    expm1_p as expm1_p,
)
from didax.extend.core.primitives import (
    floor_p as floor_p,
)
from didax.extend.core.primitives import (
    ge_p as ge_p,
)
from didax.extend.core.primitives import (
    gt_p as gt_p,
)
from didax.extend.core.primitives import (
    igamma_p as igamma_p,
)
from didax.extend.core.primitives import (
    igammac_p as igammac_p,
)
from didax.extend.core.primitives import (
    imag_p as imag_p,
)
from didax.extend.core.primitives import (
    integer_pow_p as integer_pow_p,
)
from didax.extend.core.primitives import (
    iota_p as iota_p,
)
from didax.extend.core.primitives import (
    is_finite_p as is_finite_p,
)
from didax.extend.core.primitives import (
    le_p as le_p,
)
from didax.extend.core.primitives import (
    lgamma_p as lgamma_p,
)
from didax.extend.core.primitives import (
    log1p_p as log1p_p,
)
from didax.extend.core.primitives import (
    logistic_p as logistic_p,
)
from didax.extend.core.primitives import (
    lt_p as lt_p,
)
from didax.extend.core.primitives import (
    ne_p as ne_p,
)
from didax.extend.core.primitives import (
    nextafter_p as nextafter_p,
)
from didax.extend.core.primitives import (
    not_p as not_p,
)
from didax.extend.core.primitives import (
    or_p as or_p,
)
from didax.extend.core.primitives import (
    pad_p as pad_p,
)
from didax.extend.core.primitives import (
    polygamma_p as polygamma_p,
)
from didax.extend.core.primitives import (
    population_count_p as population_count_p,
)
from didax.extend.core.primitives import (
    pow_p as pow_p,
)
from didax.extend.core.primitives import (
    real_p as real_p,
)
from didax.extend.core.primitives import (
    reduce_and_p as reduce_and_p,
)
from didax.extend.core.primitives import (
    reduce_min_p as reduce_min_p,
)
from didax.extend.core.primitives import (
    reduce_or_p as reduce_or_p,
)
from didax.extend.core.primitives import (
    reduce_precision_p as reduce_precision_p,
)
from didax.extend.core.primitives import (
    reduce_prod_p as reduce_prod_p,
)
from didax.extend.core.primitives import (
    reduce_xor_p as reduce_xor_p,
)
from didax.extend.core.primitives import (
    regularized_incomplete_beta_p as regularized_incomplete_beta_p,
)
from didax.extend.core.primitives import (
    rem_p as rem_p,
)
from didax.extend.core.primitives import (
    reshape_p as reshape_p,
)
from didax.extend.core.primitives import (
    rev_p as rev_p,
)
from didax.extend.core.primitives import (
    round_p as round_p,
)
from didax.extend.core.primitives import (
    rsqrt_p as rsqrt_p,
)
from didax.extend.core.primitives import (
    shift_left_p as shift_left_p,
)
from didax.extend.core.primitives import (
    shift_right_arithmetic_p as shift_right_arithmetic_p,
)
from didax.extend.core.primitives import (
    shift_right_logical_p as shift_right_logical_p,
)
from didax.extend.core.primitives import (
    sign_p as sign_p,
)
from didax.extend.core.primitives import (
    sinh_p as sinh_p,
)
from didax.extend.core.primitives import (
    slice_p as slice_p,
)
from didax.extend.core.primitives import (
    sort_p as sort_p,
)
from didax.extend.core.primitives import (
    sqrt_p as sqrt_p,
)
from didax.extend.core.primitives import (
    square_p as square_p,
)
from didax.extend.core.primitives import (
    squeeze_p as squeeze_p,
)
from didax.extend.core.primitives import (
    tan_p as tan_p,
)
from didax.extend.core.primitives import (
    transpose_p as transpose_p,
)
from didax.extend.core.primitives import (
    xor_p as xor_p,
)
from didax.extend.core.primitives import (
    zeta_p as zeta_p,
)

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.lax", __name__)
from didax._src.lax.sharding_constraint import (
    with_sharding_constraint as with_sharding_constraint,
)
