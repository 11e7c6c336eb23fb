"""Where Paddle keeps downloaded text data (``~/.cache/paddle/dataset/<module>/``,
the file named as the last part of its URL) and the offline "download": a file
already there is used; a missing one is a clear error, since sampan never
reaches the network."""
import os

DATA_HOME = os.path.join(os.path.expanduser('~'), '.cache', 'paddle', 'dataset')


def cached_path(url, module_name):
    """The path Paddle's downloader saves ``url`` to."""
    return os.path.join(DATA_HOME, module_name, url.split('/')[-1])


def locate(data_file, url, module_name, download, what='data_file', dataset=None):
    """``data_file`` when given; else the archive in Paddle's cache.  Paddle
    would download a missing archive; sampan cannot, and says how to pass it."""
    if data_file is not None:
        return data_file
    if not download:
        raise AssertionError(f"{what} is not set and downloading automatically is disabled")
    target = cached_path(url, module_name)
    if os.path.exists(target):
        return target
    name = dataset or module_name
    raise RuntimeError(
        f"{name}: {what} is not set and {target} does not exist. sampan cannot download "
        f"(no network access here): fetch {url} yourself, then pass its path as "
        f"{name}({what}='/path/to/{url.split('/')[-1]}') or save it as {target}")


def default_dtype():
    from ...ops.dtypes import get_default_dtype
    return get_default_dtype()
