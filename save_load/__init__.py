"""File formats: ``.pdiparams`` (combined tensor binary), ``.pdiparams.info``, and
``paddle.save``/``paddle.load`` state-dict files (restricted unpickling); the ``.pdmodel``
ProgramDesc schema lives in ``program/proto``."""
from .fileio import FormatError
from .safe_pickle import UnsafePickleError
from .pdiparams import TensorRecord, load_pdiparams, read_records, save_pdiparams
from .params_info import make_entry, read_params_info, write_params_info
from .state_dict_io import load, save

__all__ = ["FormatError", "UnsafePickleError", "TensorRecord", "load_pdiparams",
           "read_records", "save_pdiparams", "make_entry", "read_params_info",
           "write_params_info", "save", "load"]
