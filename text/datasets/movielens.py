"""``Movielens``: the MovieLens 1M ratings (``ml-1m/{movies,users,ratings}.dat``
in a zip, ``::``-separated latin-1 lines).

Each rating line goes to 'test' when a draw of ``np.random.RandomState(rand_seed)``
(one draw per line, in file order) is below ``test_ratio``, else to 'train'.
Items (int64 arrays unless said): [user id], [gender: 0 male, 1 female], [age
bucket: index in 1, 18, 25, 35, 45, 50, 56], [job id], [movie id], the
movie's category ids, its title word ids (lower-cased words of the title
without its '(year)'), and [rating * 2 - 5] (float64).

Category and title-word ids number the distinct values in the order a Python
``set`` filled in file order iterates them - Paddle's construction, which
depends on the process's string hash seed (PYTHONHASHSEED), in Paddle as here.
Paddle reseeds numpy's global generator; sampan draws from its own
RandomState with the same seed (the same numbers, the global state untouched).
"""
import re
import zipfile

import numpy as np

from ...io import Dataset
from ._common import locate

__all__ = []

AGE_TABLE = [1, 18, 25, 35, 45, 50, 56]
URL = 'https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip'
MD5 = 'c4d9eecfca2ab87c1945afe126590906'
_TITLE = re.compile(r'^(.*)\((\d+)\)$')


class MovieInfo:
    """One line of movies.dat: id, categories, title (without the year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self):
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"


class UserInfo:
    """One line of users.dat: id, gender, age bucket, job."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == 'M'
        self.age = AGE_TABLE.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self):
        return (f"<UserInfo id({self.index}), gender({'M' if self.is_male else 'F'}), "
                f"age({AGE_TABLE[self.age]}), job({self.job_id})>")


def _lines(package, name):
    with package.open(name) as f:
        for raw in f:
            yield raw.decode('latin').strip().split('::')


class Movielens(Dataset):
    def __init__(self, data_file=None, mode='train', test_ratio=0.1, rand_seed=0,
                 download=True):
        if mode.lower() not in ('train', 'test'):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        # Paddle looks for the archive under the 'sentiment' cache folder
        self.data_file = locate(data_file, URL, 'sentiment', download, dataset='Movielens')
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        self._load_meta_info()
        self._load_data()

    def _load_meta_info(self):
        self.movie_info, self.user_info = {}, {}
        title_words, categories = set(), set()
        with zipfile.ZipFile(self.data_file) as package:
            for movie_id, title, cats in _lines(package, 'ml-1m/movies.dat'):
                cats = cats.split('|')
                categories.update(cats)
                title = _TITLE.match(title).group(1)
                self.movie_info[int(movie_id)] = MovieInfo(movie_id, cats, title)
                title_words.update(w.lower() for w in title.split())
            for uid, gender, age, job, _ in _lines(package, 'ml-1m/users.dat'):
                self.user_info[int(uid)] = UserInfo(uid, gender, age, job)
        self.movie_title_dict = {w: i for i, w in enumerate(title_words)}
        self.categories_dict = {c: i for i, c in enumerate(categories)}

    def _load_data(self):
        self.data = []
        draws = np.random.RandomState(self.rand_seed)
        want_test = self.mode == 'test'
        with zipfile.ZipFile(self.data_file) as package:
            for fields in _lines(package, 'ml-1m/ratings.dat'):
                if (draws.random_sample() < self.test_ratio) != want_test:
                    continue
                uid, movie_id, rating, _ = fields
                user, movie = self.user_info[int(uid)], self.movie_info[int(movie_id)]
                self.data.append(user.value()
                                 + movie.value(self.categories_dict, self.movie_title_dict)
                                 + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
