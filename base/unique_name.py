"""``paddle.base.unique_name``: the name generator (``sampan.utils.unique_name``)."""
from ..utils.unique_name import (generate, generate_with_ignorable_key, switch, guard,  # noqa: F401
                                 UniqueNameGenerator)

__all__ = ["generate", "switch", "guard"]
