"""paddle.device: the build facts a CPU process reports (as Paddle's CPU wheel, except
the distributed flag: sampan has no distributed backend yet), set/get_device, and
streams/events as synchronous no-ops."""
import pytest

import sampan as paddle
from sampan import device


def test_a_cpu_process_reports_no_accelerator():
    if paddle.is_compiled_with_cuda():
        pytest.skip("a GPU is visible")
    assert device.get_all_device_type() == [] and device.get_available_device() == []
    assert device.get_all_custom_device_type() == [] == device.get_available_custom_device()
    assert device.get_cudnn_version() is None
    assert not any(f() for f in (device.is_compiled_with_cinn, device.is_compiled_with_cuda,
                                 device.is_compiled_with_rocm, device.is_compiled_with_xpu,
                                 device.is_compiled_with_ipu,
                                 device.is_compiled_with_distribute))
    assert device.is_compiled_with_custom_device("npu") is False
    with pytest.raises(TypeError):
        device.is_compiled_with_custom_device(3)


def test_set_device_and_places():
    assert device.get_device() == "cpu"
    assert device.set_device("cpu") == "cpu"
    t = paddle.to_tensor([1.0])
    assert t.place == paddle.CPUPlace()
    with pytest.raises(ValueError, match="XPU backend"):
        paddle.to_tensor([1.0], place=device.XPUPlace(0))
    assert repr(paddle.CUDAPinnedPlace()) == "Place(gpu_pinned)"
    assert paddle.to_tensor([2.0], place=paddle.CUDAPinnedPlace()).place == paddle.CPUPlace()


def test_streams_and_events_are_synchronous():
    s = device.Stream()
    assert s.query() and s.synchronize() is None
    prev = device.current_stream()
    with device.stream_guard(s):
        assert device.current_stream() is s
    assert device.current_stream() is prev
    assert device.set_stream(s) is prev and device.set_stream(prev) is s
    start, end = device.Event(enable_timing=True), device.Event(enable_timing=True)
    start.record()
    end.record(s)
    assert end.query() and start.elapsed_time(end) >= 0.0
    with pytest.raises(ValueError, match="enable_timing"):
        device.Event().elapsed_time(end)
    with pytest.raises(ValueError, match="priority"):
        device.Stream(priority=5)
    with pytest.raises(TypeError):
        device.set_stream("stream")
    assert device.synchronize() is None and device.synchronize("gpu:0") is None
