import pytest


@pytest.fixture
def amp_place(monkeypatch):
    """Run the test as on a GPU place, where Paddle's AMP is active (on the CPU
    auto_cast and GradScaler make no effect, as in Paddle's CPU build)."""
    import sampan.amp.place as place
    monkeypatch.setattr(place, "enabled_here", lambda: True)
    return place
