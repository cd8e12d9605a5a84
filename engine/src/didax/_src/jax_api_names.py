"""Every public name of each JAX 0.10.2 module didax mirrors (generated from JAX's own
modules): a name in this table that didax lacks is a known JAX API not implemented, and
asking for it raises NotImplementedError (missing.py) instead of an AttributeError.

May import nothing.
"""

JAX_NAMES: dict[str, str] = {
    "jax": (
        "Array Device NamedSharding P Ref ShapeDtypeStruct Shard ad allow_f16_reductions "
        "api_util array_garbage_collection_guard auto_pcast block_until_ready "
        "check_tracer_leaks checking_leaks checkpoint checkpoint_policies clear_caches "
        "closure_convert config copy_to_host_async core custom_batching custom_derivatives "
        "custom_gradient custom_jvp custom_vjp debug debug_infs debug_key_reuse debug_nans "
        "default_backend default_device default_matmul_precision default_prng_impl "
        "device_count device_get device_put devices disable_jit distributed dlpack ds dtypes "
        "effects_barrier empty_ref enable_checks enable_custom_prng enable_x64 "
        "ensure_compile_time_eval errors eval_shape experimental explain_cache_misses export "
        "ffi float0 free_ref freeze fwd_and_bwd grad hessian host_count host_id host_ids "
        "image interpreters jacfwd jacobian jacrev jax2tf_associative_scan_reductions jit jvp "
        "lax legacy_prng_key lib linear_transpose linearize live_arrays local_device_count "
        "local_devices log_compiles make_array_from_callback "
        "make_array_from_process_local_data make_array_from_single_device_arrays make_jaxpr "
        "make_mesh make_user_context memory monitoring named_call named_scope new_ref nn "
        "no_execution no_tracing numpy numpy_dtype_promotion numpy_rank_promotion ops pmap "
        "print_environment_info process_count process_index process_indices profiler "
        "pure_callback random ref remat remove_size_one_mesh_axis_from_type reshard scipy "
        "set_mesh shard_map sharding smap softmax_custom_jvp stages thread_guard "
        "threefry_partitionable transfer_guard transfer_guard_device_to_device "
        "transfer_guard_device_to_host transfer_guard_host_to_device tree tree_util typeof "
        "typing value_and_grad version vjp vmap "
    ),
    "jax.numpy": (
        "ComplexWarning abs absolute acos acosh add all allclose amax amin angle any append "
        "apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 "
        "arctanh argmax argmin argpartition argsort argwhere around array array_equal "
        "array_equiv array_repr array_split array_str asarray asin asinh astype atan atan2 "
        "atanh atleast_1d atleast_2d atleast_3d average bartlett bfloat16 bincount "
        "bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or "
        "bitwise_right_shift bitwise_xor blackman block bool bool_ broadcast_arrays "
        "broadcast_shapes broadcast_to c_ can_cast cbrt cdouble ceil character choose clip "
        "column_stack complex128 complex64 complex_ complexfloating compress concat "
        "concatenate conj conjugate convolve copy copysign corrcoef correlate cos cosh "
        "count_nonzero cov cross csingle cumprod cumsum cumulative_prod cumulative_sum "
        "deg2rad degrees delete diag diag_indices diag_indices_from diagflat diagonal diff "
        "digitize divide divmod dot double dsplit dstack dtype e ediff1d einsum einsum_path "
        "empty empty_like equal euler_gamma exp exp2 expand_dims expm1 extract eye fabs fft "
        "fill_diagonal finfo flatnonzero flexible flip fliplr flipud float16 float32 "
        "float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 "
        "float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz "
        "float8_e8m0fnu float_ float_power floating floor floor_divide fmax fmin fmod frexp "
        "from_dlpack frombuffer fromfile fromfunction fromiter frompyfunc fromstring full "
        "full_like gcd generic geomspace get_printoptions gradient greater greater_equal "
        "hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd "
        "hsplit hstack hypot i0 identity iinfo imag index_exp indices inexact inf inner "
        "insert int1 int16 int2 int32 int4 int64 int8 int_ integer interp intersect1d invert "
        "isclose iscomplex iscomplexobj isdtype isfinite isin isinf isnan isneginf isposinf "
        "isreal isrealobj isscalar issubdtype iterable ix_ kaiser kron lcm ldexp left_shift "
        "less less_equal lexsort linalg linspace load log log10 log1p log2 logaddexp "
        "logaddexp2 logical_and logical_not logical_or logical_xor logspace mask_indices "
        "matmul matrix_transpose matvec max maximum mean median meshgrid mgrid min minimum "
        "mod modf moveaxis multiply nan nan_to_num nanargmax nanargmin nancumprod nancumsum "
        "nanmax nanmean nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum "
        "nanvar ndarray ndim negative newaxis nextafter nonzero not_equal number object_ "
        "ogrid ones ones_like outer packbits pad partition percentile permute_dims pi "
        "piecewise place poly polyadd polyder polydiv polyfit polyint polymul polysub polyval "
        "positive pow power printoptions prod promote_types ptp put put_along_axis quantile "
        "r_ rad2deg radians ravel ravel_multi_index real reciprocal remainder repeat reshape "
        "resize result_type right_shift rint roll rollaxis roots rot90 round s_ save savez "
        "searchsorted select set_printoptions setdiff1d setxor1d shape sign signbit "
        "signedinteger sin sinc single sinh size sort sort_complex spacing split sqrt square "
        "squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile "
        "trace transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros triu "
        "triu_indices triu_indices_from true_divide trunc ufunc uint uint1 uint16 uint2 "
        "uint32 uint4 uint64 uint8 union1d unique unique_all unique_counts unique_inverse "
        "unique_values unpackbits unravel_index unsignedinteger unstack unwrap vander var "
        "vdot vecdot vecmat vectorize vsplit vstack where zeros zeros_like "
    ),
    "jax.numpy.linalg": (
        "cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul "
        "matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr "
        "slogdet solve svd svdvals tensordot tensorinv tensorsolve trace vecdot vector_norm "
    ),
    "jax.numpy.fft": (
        "fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 "
        "irfftn rfft rfft2 rfftfreq rfftn "
    ),
    "jax.lax": (
        "AccuracyMode ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers DotAlgorithm "
        "DotAlgorithmPreset DotDimensionNumbers FftType GatherDimensionNumbers "
        "GatherScatterMode Precision PrecisionLike RaggedDotDimensionNumbers RandomAlgorithm "
        "RoundingMethod ScatterDimensionNumbers Tolerance abs abs_p acos acos_p acosh acosh_p "
        "add add_p after_all after_all_p all_gather all_gather_p all_to_all all_to_all_p "
        "and_p approx_max_k approx_min_k approx_top_k_p argmax argmax_p argmin argmin_p asin "
        "asin_p asinh asinh_p associative_scan atan atan2 atan2_p atan_p atanh atanh_p "
        "axis_index axis_index_p axis_size batch_matmul bessel_i0e bessel_i0e_p bessel_i1e "
        "bessel_i1e_p betainc bitcast_convert_type bitcast_convert_type_p bitwise_and "
        "bitwise_not bitwise_or bitwise_xor broadcast broadcast_in_dim broadcast_in_dim_p "
        "broadcast_like broadcast_shapes broadcast_to_rank broadcasted_iota cbrt cbrt_p ceil "
        "ceil_p clamp clamp_p clz clz_p collapse complex complex_p composite concatenate "
        "concatenate_p cond cond_p conj conj_p conv conv_dimension_numbers "
        "conv_general_dilated conv_general_dilated_local conv_general_dilated_p "
        "conv_general_dilated_patches conv_general_permutations conv_general_shape_tuple "
        "conv_shape_tuple conv_transpose conv_transpose_shape_tuple conv_with_general_padding "
        "convert_element_type convert_element_type_p copy_p cos cos_p cosh cosh_p "
        "create_token create_token_p cumlogsumexp cumlogsumexp_p cummax cummax_p cummin "
        "cummin_p cumprod cumprod_p cumsum cumsum_p custom_linear_solve custom_root dce_sink "
        "dce_sink_p device_put_p digamma digamma_p div div_p dot dot_general dot_general_p "
        "dtype dynamic_index_in_dim dynamic_slice dynamic_slice_in_dim dynamic_slice_p "
        "dynamic_update_index_in_dim dynamic_update_slice dynamic_update_slice_in_dim "
        "dynamic_update_slice_p empty eq eq_p eq_to_p erf erf_inv erf_inv_p erf_p erfc erfc_p "
        "exp exp2 exp2_p exp_p expand_dims expm1 expm1_p fft fft_p floor floor_p fori_loop "
        "full full_like gather gather_p ge ge_p gt gt_p igamma igamma_grad_a igamma_grad_a_p "
        "igamma_p igammac igammac_p imag imag_p index_in_dim index_take integer_pow "
        "integer_pow_p iota iota_p is_finite is_finite_p le le_p le_to_p lgamma lgamma_p "
        "linalg linear_solve_p log log1p log1p_p log_p logistic logistic_p lt lt_p lt_to_p "
        "map max max_p min min_p mul mul_p mulhi mulhi_p ne ne_p neg neg_p nextafter "
        "nextafter_p not_p optimization_barrier optimization_barrier_p or_p pad pad_p "
        "padtype_to_pads pbroadcast pcast platform_dependent pmax pmax_p pmean pmin pmin_p "
        "polygamma polygamma_p population_count population_count_p pow pow_p ppermute "
        "ppermute_p precv psend pshuffle psum psum_p psum_scatter pswapaxes ragged_all_to_all "
        "ragged_all_to_all_p ragged_dot ragged_dot_general random_gamma_grad real real_p "
        "reciprocal reduce reduce_and reduce_and_p reduce_max reduce_max_p reduce_min "
        "reduce_min_p reduce_or reduce_or_p reduce_p reduce_precision reduce_precision_p "
        "reduce_prod reduce_prod_p reduce_sum reduce_sum_p reduce_window reduce_window_max_p "
        "reduce_window_min_p reduce_window_p reduce_window_shape_tuple reduce_window_sum_p "
        "reduce_xor reduce_xor_p regularized_incomplete_beta_p rem rem_p reshape reshape_p "
        "rev rev_p rng_bit_generator rng_bit_generator_p rng_uniform rng_uniform_p round "
        "round_p rsqrt rsqrt_p scaled_dot scan scan_p scatter scatter_add scatter_add_p "
        "scatter_apply scatter_max scatter_max_p scatter_min scatter_min_p scatter_mul "
        "scatter_mul_p scatter_p scatter_sub scatter_sub_p select select_and_gather_add_p "
        "select_and_scatter_add_p select_and_scatter_p select_n select_n_p shape_as_value "
        "sharding_constraint_p shift_left shift_left_p shift_right_arithmetic "
        "shift_right_arithmetic_p shift_right_logical shift_right_logical_p sign sign_p sin "
        "sin_p sinh sinh_p slice slice_in_dim slice_p sort sort_key_val sort_p split split_p "
        "sqrt sqrt_p square square_p squeeze squeeze_p stack stack_p stage stage_p "
        "stop_gradient stop_gradient_p sub sub_p switch tan tan_p tanh tanh_p tile tile_p "
        "top_k top_k_p transpose transpose_p unstack unstack_p while_loop while_p "
        "with_sharding_constraint xor_p zeta zeta_p "
    ),
    "jax.nn": (
        "celu dot_product_attention elu gelu get_scaled_dot_general_config glu hard_sigmoid "
        "hard_silu hard_swish hard_tanh identity initializers leaky_relu log1mexp log_sigmoid "
        "log_softmax logmeanexp logsumexp mish one_hot relu relu6 scaled_dot_general "
        "scaled_matmul selu sigmoid silu soft_sign softmax softplus sparse_plus "
        "sparse_sigmoid squareplus standardize swish tanh "
    ),
    "jax.nn.initializers": (
        "Initializer constant delta_orthogonal glorot_normal glorot_uniform he_normal "
        "he_uniform kaiming_normal kaiming_uniform lecun_normal lecun_uniform normal ones "
        "orthogonal truncated_normal uniform variance_scaling xavier_normal xavier_uniform "
        "zeros "
    ),
    "jax.random": (
        "PRNGKey ball bernoulli beta binomial bits categorical cauchy chisquare choice clone "
        "dirichlet double_sided_maxwell exponential f fold_in gamma generalized_normal "
        "geometric gumbel key key_data key_dtype key_impl laplace loggamma logistic lognormal "
        "maxwell multinomial multivariate_normal normal orthogonal pareto permutation poisson "
        "rademacher randint random_gamma_p rayleigh split t triangular truncated_normal "
        "uniform wald weibull_min wrap_key_data "
    ),
    "jax.scipy": (
        "cluster fft integrate interpolate linalg ndimage signal sparse special stats "
    ),
    "jax.scipy.special": (
        "bernoulli bessel_jn beta betainc betaln boxcox boxcox1p comb dawsn digamma entr erf "
        "erfc erfcx erfinv exp1 expi expit expn factorial fresnel gamma gammainc gammaincc "
        "gammaln gammasgn hyp1f1 hyp2f1 i0 i0e i1 i1e kl_div log_ndtr log_softmax loggamma "
        "logit logsumexp multigammaln ndtr ndtri owens_t poch polygamma rel_entr sici softmax "
        "spence sph_harm_y wofz xlog1py xlogy zeta "
    ),
    "jax.scipy.linalg": (
        "block_diag cho_factor cho_solve cholesky circulant companion convolution_matrix det "
        "dft eigh eigh_tridiagonal expm expm_frechet fiedler fiedler_companion funm hadamard "
        "hankel helmert hessenberg hilbert inv invhilbert invpascal leslie lu lu_factor "
        "lu_solve pascal polar qr qr_multiply rsf2csf schur solve solve_sylvester "
        "solve_triangular sqrtm svd toeplitz "
    ),
    "jax.scipy.stats": (
        "bernoulli beta betabinom binom cauchy chi2 dirichlet expon gamma gaussian_kde "
        "gennorm geom gumbel_l gumbel_r laplace logistic mode multinomial multivariate_normal "
        "nbinom norm pareto poisson rankdata sem t truncnorm uniform vonmises wrapcauchy "
    ),
    "jax.scipy.signal": (
        "convolve convolve2d correlate correlate2d csd detrend fftconvolve istft stft welch "
    ),
    "jax.tree_util": (
        "DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef SequenceKey "
        "all_leaves default_registry flatten_one_level flatten_one_level_with_keys "
        "is_tree_node keystr register_dataclass register_pytree_node "
        "register_pytree_node_class register_pytree_with_keys register_pytree_with_keys_class "
        "register_static tree_all tree_broadcast tree_flatten tree_flatten_with_path "
        "tree_leaves tree_leaves_with_path tree_map tree_map_with_path tree_reduce "
        "tree_reduce_associative tree_structure tree_transpose tree_unflatten "
        "treedef_children treedef_is_leaf treedef_tuple "
    ),
    "jax.tree": (
        "all broadcast flatten flatten_with_path leaves leaves_with_path map map_with_path "
        "reduce reduce_associative static structure transpose unflatten "
    ),
    "jax.debug": (
        "DebugEffect OrderedDebugEffect breakpoint callback inspect_array_sharding log print "
        "visualize_array_sharding visualize_sharding "
    ),
    "jax.experimental": (
        "EArray compilation_cache cur_qdd io_callback primal_tangent_dtype "
    ),
    "jax.export": (
        "DisabledSafetyCheck Exported SymbolicScope default_export_platform deserialize "
        "export is_symbolic_dim maximum_supported_calling_convention_version "
        "minimum_supported_calling_convention_version register_namedtuple_serialization "
        "register_pytree_node_serialization symbolic_args_specs symbolic_shape "
    ),
    "jax.dtypes": (
        "TypePromotionError bfloat16 canonicalize_dtype extended finfo float0 iinfo "
        "issubdtype itemsize_bits prng_key result_type scalar_type_of "
    ),
    "jax.errors": (
        "ConcretizationTypeError InconclusiveDimensionOperation JAXIndexError JAXTypeError "
        "JaxRuntimeError JaxprTypeError KeyReuseError NonConcreteBooleanIndexError "
        "TracerArrayConversionError TracerBoolConversionError TracerIntegerConversionError "
        "UnexpectedTracerError "
    ),
    "jax.core": (
        "AbstractValue Atom ParamDict ShapedArray Trace Tracer Value ensure_compile_time_eval "
        "eval_context eval_jaxpr max_dim min_dim "
    ),
    "jax.custom_derivatives": (
        "CustomVJPPrimal SymbolicZero closure_convert custom_gradient custom_jvp "
        "custom_jvp_call_p custom_vjp custom_vjp_call_p custom_vjp_primal_tree_values "
        "linear_call remat_opt_p zero_from_primal "
    ),
    "jax.sharding": (
        "AbstractDevice AbstractMesh AxisType ManualAxisType Mesh NamedSharding PartitionSpec "
        "Sharding SingleDeviceSharding auto_axes explicit_axes get_abstract_mesh get_mesh "
        "make_single_device_sharding reshard set_mesh use_abstract_mesh "
    ),
    "jax.extend": (
        "backend core linear_util lowering mlir pallas random sharding source_info_util xla "
    ),
    "jax.extend.core": (
        "AbstractToken CallPrimitive ClosedJaxpr DebugInfo DropVar Effect Effects "
        "InconclusiveDimensionOperation Jaxpr JaxprEqn JaxprTypeError Literal Primitive Token "
        "TraceTag Var array_types call_impl check_jaxpr concrete_or_error find_top_trace "
        "gensym get_opaque_trace_state jaxpr_as_fun jaxprs_in_params mapped_aval "
        "new_jaxpr_eqn no_effects nonempty_axis_env_DO_NOT_USE primal_dtype_to_tangent_dtype "
        "primitives set_current_trace subjaxprs take_current_trace unmapped_aval "
        "unsafe_am_i_under_a_jit_DO_NOT_USE unsafe_am_i_under_a_vmap_DO_NOT_USE "
        "unsafe_get_axis_names_DO_NOT_USE valid_jaxtype "
    ),
    "jax.interpreters": (
        "ad batching mlir partial_eval pxla traceback_util xla "
    ),
    "jax.interpreters.ad": (
        "JVPTrace JVPTracer UndefinedPrimal Zero add_jaxvals add_jaxvals_p add_tangents "
        "annotations defbilinear defjvp defjvp2 deflinear deflinear2 get_primitive_transpose "
        "instantiate_zeros is_undefined_primal jvp linearize primitive_jvps "
        "primitive_transposes zeros_like_aval "
    ),
    "jax.interpreters.batching": (
        "axis_primitive_batchers bdim_at_front broadcast defbroadcasting defreducer "
        "defvectorized fancy_primitive_batchers primitive_batchers register_vmappable "
        "unregister_vmappable "
    ),
    "jax.interpreters.mlir": (
        "AxisContext ConstantHandler DEVICE_TO_DEVICE_TYPE LoweringParameters LoweringResult "
        "LoweringRule LoweringRuleContext Mesh MeshAxisName ModuleContext RECV_FROM_HOST_TYPE "
        "SEND_TO_HOST_TYPE SPMDAxisContext ShapePolyLoweringState ShardingContext Token "
        "TokenSet Value aval_to_ir_type aval_to_ir_types core_call_lowering dense_int_array "
        "dense_int_elements dtype_to_ir_type emit_python_callback flatten_ir_types "
        "flatten_ir_values i32_attr i64_attr ir_attribute ir_constant ir_constants "
        "ir_tree_registry ir_type_handlers jaxpr_subcomp lower_fun lower_jaxpr_to_fun "
        "lower_jaxpr_to_module lowerable_effects make_ir_context merge_mlir_modules "
        "module_to_bytecode module_to_string register_constant_handler register_lowering "
        "shape_tensor token_type unflatten_ir_values_like_types "
    ),
    "jax.interpreters.partial_eval": (
        "DynamicJaxprTracer JaxprTracer PartialVal Val custom_partial_eval_rules dce_jaxpr "
        "dce_jaxpr_call_rule dce_jaxpr_closed_call_rule dce_jaxpr_consts dce_rules "
        "partial_eval_jaxpr_custom_rules trace_to_jaxpr_dynamic trace_to_jaxpr_nounits "
    ),
    "jax.interpreters.xla": (
        "Backend apply_primitive canonicalize_dtype_handlers "
    ),
    "jax.flatten_util": (
        "ravel_pytree "
    ),
    "jax.typing": (
        "ArrayLike DTypeLike "
    ),
    "jax.ops": (
        "segment_max segment_min segment_prod segment_sum "
    ),
    "jax.stages": (
        "ArgInfo Compiled CompilerOptions Lowered Traced Wrapped "
    ),
    "jax.ad_checkpoint": (
        "Offloadable Recompute Saveable checkpoint_name checkpoint_policies "
        "print_saved_residuals "
    ),
    "jax.test_util": (
        "check_grads check_jvp check_vjp "
    ),
    "jax.experimental.ode": (
        "Callable abs2 api_util core custom_derivatives fit_4th_order_polynomial "
        "initial_step_size interp_fit_dopri jax jnp lax lu map mean_error_ratio odeint "
        "optimal_step_size partial promote_dtypes_inexact ravel_first_arg ravel_first_arg_ "
        "ravel_pytree runge_kutta_step safe_map safe_zip tree_leaves tree_map zip "
    ),
    "jax.image": (
        "ResizeMethod resize scale_and_translate "
    ),
    "jax.profiler": (
        "ProfileData ProfileEvent ProfileOptions ProfilePlane StepTraceAnnotation "
        "TraceAnnotation annotate_function device_memory_profile register_subprocess "
        "save_device_memory_profile start_server start_trace stop_server stop_trace trace "
    ),
    "jax.dlpack": (
        "from_dlpack is_supported_dtype "
    ),
    "jax.ffi": (
        "build_ffi_lowering_function ffi_call ffi_lowering include_dir pycapsule "
        "register_ffi_target register_ffi_target_as_batch_partitionable register_ffi_type "
        "register_ffi_type_id "
    ),
    "jax.custom_batching": (
        "custom_vmap sequential_vmap "
    ),
    "jax.distributed": (
        "initialize is_initialized shutdown "
    ),
    "jax.monitoring": (
        "clear_event_listeners record_event record_event_duration_secs record_event_time_span "
        "record_scalar register_event_duration_secs_listener register_event_listener "
        "register_event_time_span_listener register_scalar_listener "
        "unregister_event_duration_listener unregister_event_listener "
        "unregister_event_time_span_listener unregister_scalar_listener "
    ),
    "jax.lax.linalg": (
        "EigImplementation EighImplementation SvdAlgorithm cholesky cholesky_p "
        "cholesky_update cholesky_update_p eig eig_p eigh eigh_p hessenberg hessenberg_p "
        "householder_product householder_product_p lu lu_p lu_pivots_to_permutation "
        "lu_pivots_to_permutation_p ormqr ormqr_p qdwh qr qr_p schur schur_p svd svd_p "
        "symmetric_product symmetric_product_p triangular_solve triangular_solve_p "
        "tridiagonal tridiagonal_p tridiagonal_solve tridiagonal_solve_p "
    ),
    "jax.api_util": (
        "argnums_partial debug_info donation_vector flatten_axes flatten_fun "
        "flatten_fun_nokwargs rebase_donate_argnums safe_map shaped_abstractify "
    ),
    "jax.Array": (
        "T addressable_data addressable_shards all any argmax argmin argpartition argsort "
        "astype at aval block_until_ready byteswap choose clip clone committed compress conj "
        "conjugate copy copy_to_host_async cumprod cumsum delete device device_buffer "
        "device_buffers devices diagonal dot dtype flat flatten format global_shards imag "
        "is_deleted is_fully_addressable is_fully_replicated is_ready item itemsize mT max "
        "mean min nbytes ndim nonzero on_device_size_in_bytes platform prod ptp ravel real "
        "repeat reshape round searchsorted shape sharding size sort squeeze std sum swapaxes "
        "take to_device tobytes tolist trace traceback transpose unsafe_buffer_pointer var "
        "view weak_type "
    ),
}

# Every public module of JAX 0.10.2 (importing one didax lacks raises NotImplementedError)
JAX_SUBMODULES: frozenset = frozenset((
    "jax.ad_checkpoint jax.api_util jax.cloud_tpu_init jax.collect_profile jax.core "
    "jax.custom_batching jax.custom_derivatives jax.debug jax.distributed jax.dlpack "
    "jax.dtypes jax.errors jax.example_libraries jax.example_libraries.optimizers "
    "jax.example_libraries.stax jax.experimental jax.experimental.array_serialization "
    "jax.experimental.array_serialization.pytree_serialization "
    "jax.experimental.array_serialization.pytree_serialization_utils "
    "jax.experimental.array_serialization.serialization "
    "jax.experimental.array_serialization.tensorstore_impl "
    "jax.experimental.buffer_callback jax.experimental.checkify "
    "jax.experimental.colocated_python jax.experimental.colocated_python.api "
    "jax.experimental.colocated_python.func "
    "jax.experimental.colocated_python.func_backend jax.experimental.colocated_python.obj "
    "jax.experimental.colocated_python.obj_backend "
    "jax.experimental.colocated_python.serialization jax.experimental.compilation_cache "
    "jax.experimental.compilation_cache.compilation_cache jax.experimental.compute_on "
    "jax.experimental.control_deps jax.experimental.custom_partitioning "
    "jax.experimental.fused jax.experimental.hijax jax.experimental.jax2tf "
    "jax.experimental.jet jax.experimental.key_reuse jax.experimental.layout "
    "jax.experimental.mesh_utils jax.experimental.mosaic jax.experimental.mosaic.dialects "
    "jax.experimental.mosaic.gpu jax.experimental.multihost_utils jax.experimental.ode "
    "jax.experimental.pallas jax.experimental.pallas.fuser "
    "jax.experimental.pallas.mosaic_gpu jax.experimental.pallas.ops "
    "jax.experimental.pallas.ops.gpu jax.experimental.pallas.ops.gpu.all_gather_mgpu "
    "jax.experimental.pallas.ops.gpu.attention "
    "jax.experimental.pallas.ops.gpu.attention_mgpu "
    "jax.experimental.pallas.ops.gpu.blackwell_matmul_mgpu "
    "jax.experimental.pallas.ops.gpu.blackwell_ragged_dot_mgpu "
    "jax.experimental.pallas.ops.gpu.collective_matmul_mgpu "
    "jax.experimental.pallas.ops.gpu.decode_attention "
    "jax.experimental.pallas.ops.gpu.hopper_matmul_mgpu "
    "jax.experimental.pallas.ops.gpu.hopper_mixed_type_matmul_mgpu "
    "jax.experimental.pallas.ops.gpu.layer_norm "
    "jax.experimental.pallas.ops.gpu.paged_attention "
    "jax.experimental.pallas.ops.gpu.ragged_dot_mgpu "
    "jax.experimental.pallas.ops.gpu.reduce_scatter_mgpu "
    "jax.experimental.pallas.ops.gpu.rms_norm jax.experimental.pallas.ops.gpu.softmax "
    "jax.experimental.pallas.ops.gpu.transposed_ragged_dot_mgpu "
    "jax.experimental.pallas.ops.tpu jax.experimental.pallas.ops.tpu.all_gather "
    "jax.experimental.pallas.ops.tpu.example_kernel "
    "jax.experimental.pallas.ops.tpu.flash_attention "
    "jax.experimental.pallas.ops.tpu.matmul jax.experimental.pallas.ops.tpu.megablox "
    "jax.experimental.pallas.ops.tpu.megablox.common "
    "jax.experimental.pallas.ops.tpu.megablox.gmm "
    "jax.experimental.pallas.ops.tpu.megablox.ops "
    "jax.experimental.pallas.ops.tpu.paged_attention "
    "jax.experimental.pallas.ops.tpu.paged_attention.paged_attention_kernel "
    "jax.experimental.pallas.ops.tpu.paged_attention.quantization_utils "
    "jax.experimental.pallas.ops.tpu.paged_attention.util "
    "jax.experimental.pallas.ops.tpu.ragged_paged_attention "
    "jax.experimental.pallas.ops.tpu.ragged_paged_attention.kernel "
    "jax.experimental.pallas.ops.tpu.ragged_paged_attention.tuned_block_sizes "
    "jax.experimental.pallas.ops.tpu.random jax.experimental.pallas.ops.tpu.random.philox "
    "jax.experimental.pallas.ops.tpu.random.prng_utils "
    "jax.experimental.pallas.ops.tpu.random.threefry "
    "jax.experimental.pallas.ops.tpu.splash_attention "
    "jax.experimental.pallas.ops.tpu.splash_attention.splash_attention_kernel "
    "jax.experimental.pallas.ops.tpu.splash_attention.splash_attention_mask "
    "jax.experimental.pallas.ops.tpu.splash_attention.splash_attention_mask_info "
    "jax.experimental.pallas.tpu jax.experimental.pallas.tpu_sc "
    "jax.experimental.pallas.triton jax.experimental.pjit jax.experimental.profiler "
    "jax.experimental.random jax.experimental.rnn jax.experimental.roofline "
    "jax.experimental.scheduling_groups jax.experimental.serialize_executable "
    "jax.experimental.shard_alike jax.experimental.shard_map "
    "jax.experimental.source_mapper jax.experimental.sparse jax.experimental.sparse.ad "
    "jax.experimental.sparse.api jax.experimental.sparse.bcoo "
    "jax.experimental.sparse.bcsr jax.experimental.sparse.coo jax.experimental.sparse.csr "
    "jax.experimental.sparse.linalg jax.experimental.sparse.random "
    "jax.experimental.sparse.test_util jax.experimental.sparse.transform "
    "jax.experimental.sparse.util jax.experimental.topologies jax.experimental.transfer "
    "jax.experimental.xla_metadata jax.export jax.extend jax.extend.backend "
    "jax.extend.core jax.extend.core.primitives jax.extend.ifrt_programs "
    "jax.extend.linear_util jax.extend.lowering jax.extend.mlir jax.extend.mlir.dialects "
    "jax.extend.mlir.dialects.arith jax.extend.mlir.dialects.builtin "
    "jax.extend.mlir.dialects.chlo jax.extend.mlir.dialects.func "
    "jax.extend.mlir.dialects.math jax.extend.mlir.dialects.memref "
    "jax.extend.mlir.dialects.mpmd jax.extend.mlir.dialects.scf "
    "jax.extend.mlir.dialects.sdy jax.extend.mlir.dialects.sparse_tensor "
    "jax.extend.mlir.dialects.stablehlo jax.extend.mlir.dialects.vector "
    "jax.extend.mlir.ir jax.extend.mlir.passmanager jax.extend.pallas jax.extend.random "
    "jax.extend.sharding jax.extend.source_info_util jax.extend.xla jax.ffi "
    "jax.flatten_util jax.image jax.interpreters jax.interpreters.ad "
    "jax.interpreters.batching jax.interpreters.mlir jax.interpreters.partial_eval "
    "jax.interpreters.pxla jax.interpreters.xla jax.lax jax.lax.linalg jax.lib "
    "jax.monitoring jax.nn jax.nn.initializers jax.numpy jax.numpy.fft jax.numpy.linalg "
    "jax.ops jax.profiler jax.random jax.ref jax.scipy jax.scipy.cluster "
    "jax.scipy.cluster.vq jax.scipy.fft jax.scipy.integrate jax.scipy.interpolate "
    "jax.scipy.linalg jax.scipy.ndimage jax.scipy.optimize jax.scipy.signal "
    "jax.scipy.sparse jax.scipy.sparse.linalg jax.scipy.spatial "
    "jax.scipy.spatial.transform jax.scipy.special jax.scipy.stats "
    "jax.scipy.stats.bernoulli jax.scipy.stats.beta jax.scipy.stats.betabinom "
    "jax.scipy.stats.binom jax.scipy.stats.cauchy jax.scipy.stats.chi2 "
    "jax.scipy.stats.dirichlet jax.scipy.stats.expon jax.scipy.stats.gamma "
    "jax.scipy.stats.gennorm jax.scipy.stats.geom jax.scipy.stats.gumbel_l "
    "jax.scipy.stats.gumbel_r jax.scipy.stats.laplace jax.scipy.stats.logistic "
    "jax.scipy.stats.multinomial jax.scipy.stats.multivariate_normal "
    "jax.scipy.stats.nbinom jax.scipy.stats.norm jax.scipy.stats.pareto "
    "jax.scipy.stats.poisson jax.scipy.stats.t jax.scipy.stats.truncnorm "
    "jax.scipy.stats.uniform jax.scipy.stats.vonmises jax.scipy.stats.wrapcauchy "
    "jax.sharding jax.stages jax.test_util jax.tools jax.tools.jax_to_ir "
    "jax.tools.pgo_nsys_converter jax.tree jax.tree_util jax.typing jax.version "
).split())

# The jax.numpy functions JAX 0.10.2 defines under jit (PjitFunction objects: export accepts
# them as it accepts the result of jit).
JIT_NUMPY: frozenset = frozenset((
    "abs absolute acos acosh allclose angle append arccos arccosh arcsin arcsinh arctan "
    "arctan2 arctanh argpartition argsort around asin asinh atan atan2 atanh atleast_1d "
    "atleast_2d atleast_3d bitwise_count bitwise_invert bitwise_left_shift bitwise_not "
    "bitwise_right_shift block cbrt ceil clip conjugate convolve copysign corrcoef "
    "correlate cos cosh count_nonzero cov cross cumprod cumsum deg2rad diagonal diff "
    "digitize divmod dot ediff1d equal exp exp2 expm1 fabs float_power floor floor_divide "
    "fmax fmin fmod frexp gcd gradient greater greater_equal heaviside hypot i0 imag "
    "inner invert isclose iscomplex isfinite isinf isnan isreal kron lcm ldexp left_shift "
    "less less_equal lexsort log log10 log1p log2 logical_not matmul matvec median modf "
    "nan_to_num nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile "
    "nanprod nanquantile nanstd nansum nanvar nextafter not_equal outer packbits "
    "partition percentile poly polyadd polyder polyfit polyint polysub polyval positive "
    "put_along_axis quantile rad2deg ravel real reciprocal remainder resize right_shift "
    "rint rollaxis rot90 round searchsorted sign signbit sin sinc sinh sort sort_complex "
    "spacing sqrt square swapaxes take_along_axis tan tanh trace trapezoid tril triu "
    "true_divide trunc unpackbits unstack unwrap vander vdot vecmat "
).split())
