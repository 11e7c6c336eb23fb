"""paddle.version: the version fields of the Paddle API sampan implements (what
Paddle 2.6.2's module holds), and the build facts of this build (no MKL, cuDNN,
XPU or CINN; CUDA only with a GPU cupy finds, agreeing with
is_compiled_with_cuda)."""
import sampan as paddle


def test_the_version_fields_are_paddle_2_6_2s():
    v = paddle.version
    assert (v.full_version, v.major, v.minor, v.patch, v.rc, v.istaged) == \
        ("2.6.2", "2", "6", "2", "0", True)
    import sampan.version as mod                    # importable as Paddle's module is
    from sampan.version import full_version
    assert mod is v and full_version == "2.6.2"
    assert v.commit == f"sampan-{paddle.__version__}"


def test_the_build_facts_are_sampans():
    v = paddle.version
    assert v.mkl() == v.with_mkl == "OFF"
    assert v.cudnn() == v.xpu() == v.xpu_xccl() == v.cinn() == "False"
    if paddle.is_compiled_with_cuda():
        major, minor = v.cuda().split(".")
        assert int(major) >= 10 and minor.isdigit() and v.cuda_version == v.cuda()
    else:
        assert v.cuda() == v.cuda_version == "False"


def test_show_prints_paddles_fields_and_sampans_version(capsys):
    paddle.version.show()
    lines = capsys.readouterr().out.splitlines()
    keys = [line.split(":")[0] for line in lines]
    assert keys == ["full_version", "major", "minor", "patch", "rc", "cuda", "cudnn", "xpu",
                    "xpu_xccl", "cinn", "sampan"]
    assert lines[0] == "full_version: 2.6.2" and paddle.__version__ in lines[-1]
