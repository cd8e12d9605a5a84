"""`jax.example_libraries.optimizers`: optimizers as (init, update, get_params) triples,
schedules and gradient utilities."""

from didax._src.example_libraries.optimizers import Array as Array
from didax._src.example_libraries.optimizers import InitFn as InitFn
from didax._src.example_libraries.optimizers import JoinPoint as JoinPoint
from didax._src.example_libraries.optimizers import Optimizer as Optimizer
from didax._src.example_libraries.optimizers import OptimizerState as OptimizerState
from didax._src.example_libraries.optimizers import Params as Params
from didax._src.example_libraries.optimizers import ParamsFn as ParamsFn
from didax._src.example_libraries.optimizers import Schedule as Schedule
from didax._src.example_libraries.optimizers import State as State
from didax._src.example_libraries.optimizers import Step as Step
from didax._src.example_libraries.optimizers import UpdateFn as UpdateFn
from didax._src.example_libraries.optimizers import Updates as Updates
from didax._src.example_libraries.optimizers import adagrad as adagrad
from didax._src.example_libraries.optimizers import adam as adam
from didax._src.example_libraries.optimizers import adamax as adamax
from didax._src.example_libraries.optimizers import clip_grads as clip_grads
from didax._src.example_libraries.optimizers import constant as constant
from didax._src.example_libraries.optimizers import exponential_decay as exponential_decay
from didax._src.example_libraries.optimizers import inverse_time_decay as inverse_time_decay
from didax._src.example_libraries.optimizers import l2_norm as l2_norm
from didax._src.example_libraries.optimizers import make_schedule as make_schedule
from didax._src.example_libraries.optimizers import momentum as momentum
from didax._src.example_libraries.optimizers import nesterov as nesterov
from didax._src.example_libraries.optimizers import optimizer as optimizer
from didax._src.example_libraries.optimizers import pack_optimizer_state as pack_optimizer_state
from didax._src.example_libraries.optimizers import piecewise_constant as piecewise_constant
from didax._src.example_libraries.optimizers import polynomial_decay as polynomial_decay
from didax._src.example_libraries.optimizers import rmsprop as rmsprop
from didax._src.example_libraries.optimizers import rmsprop_momentum as rmsprop_momentum
from didax._src.example_libraries.optimizers import sgd as sgd
from didax._src.example_libraries.optimizers import sm3 as sm3
from didax._src.example_libraries.optimizers import unpack_optimizer_state as unpack_optimizer_state
