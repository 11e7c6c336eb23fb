"""The vision-model cases shared by the recorder (run in real Paddle's venv:
tests/interop/record_vision_models.py) and the tests (run in sampan): which models
are built with which arguments, and the weights and inputs they get.

Pure numpy and the standard library, so both sides import it.  Weights are
not committed: each state-dict entry is drawn from ``numpy.random.RandomState``
(whose stream numpy keeps stable across versions) seeded by the case and the
key, so Paddle and sampan load the very same numbers.
"""
import zlib

import numpy as np

# case -> (builder name in vision.models, keyword arguments, input shape)
OUTPUT_CASES = {
    "lenet": ("LeNet", {}, [2, 1, 28, 28]),
    "alexnet": ("alexnet", {}, [1, 3, 224, 224]),
    "vgg11_features": ("vgg11", {"num_classes": 0}, [1, 3, 32, 32]),
    "vgg11_bn_features": ("vgg11", {"batch_norm": True, "num_classes": 0}, [1, 3, 32, 32]),
    "resnet18": ("resnet18", {}, [2, 3, 64, 64]),
    "resnext50_32x4d": ("resnext50_32x4d", {"num_classes": 10}, [1, 3, 32, 32]),
    "mobilenet_v1_x0_25": ("mobilenet_v1", {"scale": 0.25}, [1, 3, 64, 64]),
    "mobilenet_v2_x0_25": ("mobilenet_v2", {"scale": 0.25}, [1, 3, 64, 64]),
    "mobilenet_v2_nohead": ("mobilenet_v2", {"scale": 0.25, "num_classes": 0,
                                             "with_pool": False}, [1, 3, 32, 32]),
    "mobilenet_v3_small_x0_25": ("mobilenet_v3_small", {"scale": 0.25}, [1, 3, 64, 64]),
    "mobilenet_v3_large_x0_5": ("mobilenet_v3_large", {"scale": 0.5}, [1, 3, 64, 64]),
    "squeezenet1_0": ("squeezenet1_0", {}, [1, 3, 64, 64]),
    "squeezenet1_1": ("squeezenet1_1", {}, [1, 3, 64, 64]),
    "shufflenet_v2_x0_25": ("shufflenet_v2_x0_25", {}, [1, 3, 64, 64]),
    "shufflenet_v2_swish": ("shufflenet_v2_swish", {"num_classes": 10}, [1, 3, 64, 64]),
    "densenet121": ("densenet121", {"num_classes": 10}, [1, 3, 64, 64]),
    "googlenet": ("googlenet", {"num_classes": 10}, [1, 3, 192, 192]),
    "inception_v3": ("inception_v3", {"num_classes": 10}, [1, 3, 75, 75]),
}

# train-mode cases (batch-norm batch statistics, no dropout): case -> (builder, kwargs,
# input shape, parameters whose gradients of sum(out * make_input(case + "/loss")) are
# compared, batch-norm buffers compared after the step)
TRAIN_CASES = {
    "resnet18_train": ("resnet18", {"num_classes": 10}, [4, 3, 48, 48],
                       ["conv1.weight", "bn1.weight", "layer3.0.downsample.1.weight",
                        "layer4.1.bn1.weight", "fc.weight", "fc.bias"],
                       ["bn1._mean", "bn1._variance", "layer4.1.bn2._mean"]),
    "mobilenet_v3_small_train": ("mobilenet_v3_small", {"scale": 0.5, "num_classes": 0},
                                 [4, 3, 96, 96],
                                 ["conv.0.weight", "blocks.0.mid_se.fc1.weight",
                                  "blocks.0.mid_se.fc2.bias", "blocks.3.expand_conv.1.bias",
                                  "lastconv.1.weight"],
                                 ["conv.1._mean", "blocks.5.bottleneck_conv.1._variance"]),
}

# the modules of paddle.vision.models that have pretrained weights (``model_urls``)
MODULES = ["alexnet", "densenet", "googlenet", "inceptionv3", "mobilenetv1", "mobilenetv2",
           "mobilenetv3", "resnet", "shufflenetv2", "squeezenet", "vgg"]

# builder calls whose state-dict keys and shapes are recorded (every public
# builder with its defaults, plus the options that change the structure)
BUILDERS = [
    "alexnet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264",
    "googlenet", "inception_v3", "mobilenet_v1", "mobilenet_v2", "mobilenet_v3_large",
    "mobilenet_v3_small", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d",
    "resnext152_32x4d", "resnext152_64x4d", "shufflenet_v2_swish", "shufflenet_v2_x0_5",
    "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0", "squeezenet1_0", "squeezenet1_1", "vgg11", "vgg13", "vgg16",
    "vgg19", "wide_resnet50_2", "wide_resnet101_2",
]
STRUCTURE_CASES = {name: (name, {}) for name in BUILDERS}
STRUCTURE_CASES.update({
    "LeNet": ("LeNet", {}),
    "LeNet_nohead": ("LeNet", {"num_classes": 0}),
    "AlexNet": ("AlexNet", {"num_classes": 10}),
    "DenseNet_nohead": ("DenseNet", {"layers": 169, "num_classes": 0}),
    "GoogLeNet_nohead": ("GoogLeNet", {"num_classes": 0, "with_pool": False}),
    "InceptionV3": ("InceptionV3", {"num_classes": 7}),
    "MobileNetV1_x0_75": ("MobileNetV1", {"scale": 0.75}),
    "MobileNetV2_x1_4": ("MobileNetV2", {"scale": 1.4}),
    "MobileNetV3Small_x0_5": ("MobileNetV3Small", {"scale": 0.5}),
    "MobileNetV3Large_x0_75": ("MobileNetV3Large", {"scale": 0.75, "num_classes": 0}),
    "ShuffleNetV2_x0_33_swish": ("ShuffleNetV2", {"scale": 0.33, "act": "swish"}),
    "SqueezeNet_10": ("SqueezeNet", {"version": "1.1", "num_classes": 10, "with_pool": False}),
    "resnet34_nohead": ("resnet34", {"num_classes": 0, "with_pool": False}),
})
for _depth in (11, 13, 16, 19):
    STRUCTURE_CASES[f"vgg{_depth}_bn"] = (f"vgg{_depth}", {"batch_norm": True})


def _rng(case, key):
    return np.random.RandomState(zlib.crc32(f"{case}/{key}".encode()) & 0x7FFFFFFF)


def make_weights(case, shapes):
    """{key: float32 array} for ``shapes`` ({key: shape}): He-uniform conv and
    linear weights, batch-norm scales and variances in [0.5, 1.5), small
    biases and means, so deep networks keep their activations in range."""
    out = {}
    for key, shape in shapes.items():
        shape = tuple(int(d) for d in shape)
        rng = _rng(case, key)
        if key.endswith("_variance"):
            low, high = 0.5, 1.5
        elif len(shape) == 1 and key.endswith("weight"):     # batch-norm scale
            low, high = 0.5, 1.5
        elif len(shape) == 1:                                 # biases, running means
            low, high = -0.1, 0.1
        else:
            # conv [out, in/groups, kh, kw]: fan-in in/groups*kh*kw; linear [in, out]: in
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            high = float(np.sqrt(6.0 / fan_in))
            low = -high
        out[key] = rng.uniform(low, high, shape).astype(np.float32)
    return out


def make_input(case, shape):
    return _rng(case, "<input>").uniform(-1.0, 1.0, shape).astype(np.float32)
