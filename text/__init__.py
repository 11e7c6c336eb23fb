"""``paddle.text``: Viterbi decoding (``viterbi_decode``, ``ViterbiDecoder``) and
the text datasets Paddle 2.6 ships (``Conll05st``, ``Imdb``, ``Imikolov``,
``Movielens``, ``UCIHousing``, ``WMT14``, ``WMT16``), read from the archives
Paddle downloads; sampan never downloads: pass ``data_file`` or put the
archive where Paddle's downloader saves it (``~/.cache/paddle/dataset/...``)."""
from .viterbi_decode import viterbi_decode, ViterbiDecoder
from .datasets import Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16",
           "viterbi_decode", "ViterbiDecoder"]
