"""The calls of paddle.vision.transforms whose results are recorded from real
Paddle (tests/interop/record_vision_transforms.py) and replayed on sampan
(tests/vision/test_transforms.py).  ``cases(T, P)`` takes the transforms module
and the top-level package (paddle or sampan) so both sides run the same calls.
No import of paddle or sampan here."""
import random

import numpy as np

INTERPS = ("nearest", "bilinear", "bicubic")


def images():
    rng = np.random.RandomState(7)
    u8 = rng.randint(0, 256, size=(8, 10, 3)).astype(np.uint8)
    f32 = (rng.rand(8, 10, 3) * 255).astype(np.float32)
    gray = rng.randint(0, 256, size=(8, 10, 1)).astype(np.uint8)
    return u8, f32, gray


def _seeded(fn, seed):
    def run():
        random.seed(seed)
        np.random.seed(seed)
        return fn()
    return run


def cases(T, P):
    """name -> zero-argument callable returning an array or Tensor."""
    F = T
    u8, f32, gray = images()
    out = {}
    # ---- numpy images: Paddle's cv2 backend
    for name, img in (("u8", u8), ("f32", f32), ("gray", gray)):
        for mode in INTERPS + ("area", "lanczos"):
            for size in ((5, 7), (13, 17), 6):
                out[f"np_resize_{name}_{mode}_{size}"] = (
                    lambda img=img, size=size, mode=mode: F.resize(img, size, mode))
        for mode in ("constant", "edge", "reflect", "symmetric"):
            out[f"np_pad_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.pad(img, (1, 2, 3, 4), 9, mode))
        out[f"np_pad_{name}_2"] = lambda img=img: F.pad(img, [2, 1])
        out[f"np_center_crop_{name}"] = lambda img=img: F.center_crop(img, (5, 5))
        out[f"np_crop_{name}"] = lambda img=img: F.crop(img, 1, 2, 4, 5)
        out[f"np_hflip_{name}"] = lambda img=img: F.hflip(img)
        out[f"np_vflip_{name}"] = lambda img=img: F.vflip(img)
        for mode in INTERPS:
            out[f"np_rotate_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.rotate(img, 33.0, mode))
            out[f"np_rotate_expand_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.rotate(img, -71.5, mode, expand=True, fill=7))
            out[f"np_rotate_center_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.rotate(img, 100, mode, center=(2, 3)))
            out[f"np_affine_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.affine(img, 15, (1, -2), 0.9, (10, 5), mode,
                                                    fill=3))
            out[f"np_perspective_{name}_{mode}"] = (
                lambda img=img, mode=mode: F.perspective(
                    img, [[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 1], [8, 0], [9, 6], [2, 7]],
                    mode, fill=5))
        out[f"np_normalize_{name}"] = (
            lambda img=img: F.normalize(img.astype("float32"), [10, 20, 30][:img.shape[2]],
                                        [2, 3, 4][:img.shape[2]], data_format="HWC"))
        out[f"np_erase_{name}"] = lambda img=img: F.erase(img, 1, 2, 3, 4, 0)
        out[f"np_to_tensor_{name}"] = lambda img=img: F.to_tensor(img)
        out[f"np_to_tensor_hwc_{name}"] = lambda img=img: F.to_tensor(img, "HWC")
    out["np_rotate_area_u8"] = lambda: F.rotate(u8, 21, "area")
    out["np_resize_area_down_up"] = lambda: F.resize(f32, (4, 23), "area")
    for k in (1, 3):
        out[f"np_gray_u8_{k}"] = lambda k=k: F.to_grayscale(u8, k)
        out[f"np_gray_f32_{k}"] = lambda k=k: F.to_grayscale(f32, k)
    for fac in (0.4, 1.3):
        out[f"np_brightness_{fac}"] = lambda fac=fac: F.adjust_brightness(u8, fac)
        out[f"np_contrast_{fac}"] = lambda fac=fac: F.adjust_contrast(u8, fac)
    for fac in (-0.5, -0.3, 0.0, 0.2, 0.5):
        out[f"np_hue_{fac}"] = lambda fac=fac: F.adjust_hue(u8, fac)
    out["np_normalize_chw_rgb"] = lambda: F.normalize(
        f32.transpose(2, 0, 1), [1, 2, 3], [4, 5, 6], "CHW", to_rgb=False)
    out["np_normalize_hwc_to_rgb"] = lambda: F.normalize(f32, [1, 2, 3], [4, 5, 6], "HWC", True)

    # ---- Tensors (CHW): Paddle's tensor backend
    tf = lambda: P.to_tensor(f32.transpose(2, 0, 1) / 255.0)          # noqa: E731
    tu = lambda: P.to_tensor(u8.transpose(2, 0, 1))                   # noqa: E731
    for mode in ("nearest", "bilinear", "bicubic"):
        for size in ((5, 7), (13, 17), 6):
            out[f"t_resize_{mode}_{size}"] = (
                lambda mode=mode, size=size: F.resize(tf(), size, mode))
    for mode in ("nearest", "bilinear"):
        out[f"t_rotate_{mode}"] = lambda mode=mode: F.rotate(tf(), 33.0, mode)
        out[f"t_rotate_expand_{mode}"] = (
            lambda mode=mode: F.rotate(tf(), -71.5, mode, expand=True, fill=[0.1, 0.2, 0.3]))
        out[f"t_rotate_center_{mode}"] = (
            lambda mode=mode: F.rotate(tf(), 100, mode, center=(2, 3)))
        out[f"t_affine_{mode}"] = (
            lambda mode=mode: F.affine(tf(), 15, (1, -2), 0.9, (10, 5), mode, fill=0))
        out[f"t_affine_center_{mode}"] = (
            lambda mode=mode: F.affine(tf(), -20, [0, 1], 1.2, 8, mode, center=[3, 4]))
        out[f"t_perspective_{mode}"] = (
            lambda mode=mode: F.perspective(
                tf(), [[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 1], [8, 0], [9, 6], [2, 7]],
                mode, fill=0))
    for mode in ("constant", "edge", "reflect"):
        out[f"t_pad_{mode}"] = lambda mode=mode: F.pad(tf(), (1, 2, 3, 4), 0.5, mode)
    out["t_crop"] = lambda: F.crop(tf(), 1, 2, 4, 5)
    out["t_center_crop"] = lambda: F.center_crop(tf(), 5)
    out["t_hflip"] = lambda: F.hflip(tf())
    out["t_vflip"] = lambda: F.vflip(tf())
    for k in (1, 3):
        out[f"t_gray_{k}"] = lambda k=k: F.to_grayscale(tf(), k)
    for fac in (0.4, 1.3):
        out[f"t_brightness_{fac}"] = lambda fac=fac: F.adjust_brightness(tf(), fac)
        out[f"t_contrast_{fac}"] = lambda fac=fac: F.adjust_contrast(tf(), fac)
        out[f"t_brightness_u8_{fac}"] = lambda fac=fac: F.adjust_brightness(tu(), fac)
        out[f"t_contrast_u8_{fac}"] = lambda fac=fac: F.adjust_contrast(tu(), fac)
    for fac in (-0.4, 0.0, 0.25):
        out[f"t_hue_{fac}"] = lambda fac=fac: F.adjust_hue(tf(), fac)
        out[f"t_hue_u8_{fac}"] = lambda fac=fac: F.adjust_hue(tu(), fac)
    out["t_normalize"] = lambda: F.normalize(tf(), [0.1, 0.2, 0.3], [0.5, 0.6, 0.7])
    out["t_erase"] = lambda: F.erase(tf(), 1, 2, 3, 4, P.to_tensor([[[0.5]]]))
    out["t_to_tensor_hwc"] = lambda: F.to_tensor(tf(), "HWC")

    # ---- PIL images (only where Pillow is installed; results as arrays)
    def pil(arr):
        from PIL import Image
        return Image.fromarray(arr if arr.shape[2] == 3 else arr[:, :, 0])

    as_np = np.asarray
    out["pil_resize_bilinear"] = lambda: as_np(F.resize(pil(u8), (5, 7)))
    out["pil_resize_int_bicubic"] = lambda: as_np(F.resize(pil(u8), 6, "bicubic"))
    out["pil_pad_reflect"] = lambda: as_np(F.pad(pil(u8), (1, 2, 3, 4), 0, "reflect"))
    out["pil_pad_constant"] = lambda: as_np(F.pad(pil(u8), 2, (1, 2, 3)))
    out["pil_rotate"] = lambda: as_np(F.rotate(pil(u8), 33.0, "bilinear", expand=True))
    out["pil_affine"] = lambda: as_np(F.affine(pil(u8), 15, (1, -2), 0.9, (10, 5), "bilinear"))
    out["pil_perspective"] = lambda: as_np(F.perspective(
        pil(u8), [[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 1], [8, 0], [9, 6], [2, 7]]))
    out["pil_gray"] = lambda: as_np(F.to_grayscale(pil(u8), 3))
    out["pil_hue"] = lambda: as_np(F.adjust_hue(pil(u8), 0.3))
    out["pil_contrast"] = lambda: as_np(F.adjust_contrast(pil(u8), 1.4))
    out["pil_to_tensor_gray"] = lambda: F.to_tensor(pil(gray))
    out["pil_normalize"] = lambda: F.normalize(pil(u8), [1, 2, 3], [2, 2, 2], "HWC")
    out["pil_erase"] = lambda: as_np(F.erase(pil(u8), 1, 1, 2, 3, 9))
    out["pil_compose"] = _seeded(lambda: T.Compose([
        T.RandomResizedCrop(6), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.1),
        T.RandomRotation(20), T.ToTensor()])(pil(u8)), 4)

    # ---- random transforms: python `random` and numpy draw the parameters
    rand = {
        "resized_crop": lambda img: T.RandomResizedCrop((6, 5))(img),
        "resized_crop_ratio": lambda img: T.RandomResizedCrop(4, scale=(0.9, 1.0),
                                                              ratio=(3.0, 4.0))(img),
        "crop": lambda img: T.RandomCrop((5, 6))(img),
        "crop_pad": lambda img: T.RandomCrop(12, padding=1, pad_if_needed=True, fill=4)(img),
        "hflip": lambda img: [T.RandomHorizontalFlip(0.5)(img) for _ in range(4)],
        "vflip": lambda img: [T.RandomVerticalFlip(0.5)(img) for _ in range(4)],
        "rotation": lambda img: T.RandomRotation(40)(img),
        "affine": lambda img: T.RandomAffine(30, translate=(0.2, 0.3), scale=(0.8, 1.2),
                                             shear=(-5, 5, -3, 3))(img),
        "perspective": lambda img: T.RandomPerspective(prob=1.0, distortion_scale=0.6)(img),
        "erasing": lambda img: T.RandomErasing(prob=1.0, value=3)(img),
        "erasing_rgb": lambda img: T.RandomErasing(prob=1.0, value=[1, 2, 3])(img),
    }
    for key, fn in rand.items():
        for seed in (0, 5):
            out[f"rand_np_{key}_{seed}"] = _seeded(lambda fn=fn: fn(u8), seed)
            if key not in ("perspective",):
                out[f"rand_t_{key}_{seed}"] = _seeded(lambda fn=fn: fn(tf()), seed)
    for seed in (0, 3):
        out[f"rand_np_erasing_random_{seed}"] = _seeded(
            lambda: T.RandomErasing(prob=1.0, value="random")(u8), seed)
        out[f"rand_np_colorjitter_{seed}"] = _seeded(
            lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.2)(u8), seed)
        out[f"rand_np_saturation_{seed}"] = _seeded(lambda: T.SaturationTransform(0.5)(u8),
                                                    seed)
        out[f"rand_t_colorjitter_{seed}"] = _seeded(
            lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.2)(tf()), seed)
    out["compose"] = _seeded(lambda: T.Compose([
        T.Resize(12), T.CenterCrop(8), T.Pad(1), T.Transpose(), T.Normalize(127.5, 127.5,
                                                                            "CHW")])(u8), 1)
    out["compose_tensor"] = _seeded(lambda: T.Compose([
        T.ToTensor(), T.Resize((6, 6)), T.Grayscale(3), T.Normalize([0.5], [0.5])])(u8), 1)
    return out
