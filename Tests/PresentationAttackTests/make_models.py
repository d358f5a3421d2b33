"""Builds the small ONNX models the passive-liveness tests run, and runs
onnx's reference evaluator on a crop for them. No model ships with
workbench: these have random weights and the operations real
anti-spoofing models use.

  make_models.py build FOLDER
  make_models.py bench FOLDER
      minifasnet-v2-size.onnx: about MiniFASNetV2's parameters (0.4 M) and
      work (about 80 M multiply-adds) at 80x80, for scripts/bench liveness.
  make_models.py reference MODEL CROP WIDTH HEIGHT CHANNELS MEAN SCALE
      CROP: raw RGB bytes, WIDTH x HEIGHT; CHANNELS: bgr or rgb; MEAN and
      SCALE: three numbers each, comma-separated. Prints the output values.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun

OPSET = 11


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, path)


def minifasnet_like(path, size, classes, batch, pixel_range=1.0, blocks=None):
    """Conv, BatchNormalization, PRelu, a squeeze-excitation (GlobalAveragePool,
    Sigmoid, Mul), PyTorch's view(x.size(0), -1) flatten and Gemm. `blocks`:
    (outputs, stride) of each convolution after the first two."""
    rng = np.random.default_rng(7)
    nodes, weights = [], []

    def conv_block(name, source, inputs, outputs, spread, stride=2):
        weights.extend([
            tensor(name + ".w", rng.normal(0, spread, (outputs, inputs, 3, 3))),
            tensor(name + ".b", rng.normal(0, 0.1, outputs)),
            tensor(name + ".gamma", rng.uniform(0.5, 1.5, outputs)),
            tensor(name + ".beta", rng.normal(0, 0.1, outputs)),
            tensor(name + ".mean", rng.normal(0, 0.1, outputs)),
            tensor(name + ".var", rng.uniform(0.5, 1.5, outputs)),
            tensor(name + ".slope", rng.uniform(0.1, 0.3, (outputs, 1, 1))),
        ])
        nodes.extend([
            helper.make_node("Conv", [source, name + ".w", name + ".b"], [name + ".c"],
                             kernel_shape=[3, 3], strides=[stride, stride], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization",
                             [name + ".c", name + ".gamma", name + ".beta", name + ".mean", name + ".var"],
                             [name + ".n"]),
            helper.make_node("PRelu", [name + ".n", name + ".slope"], [name]),
        ])
        return name

    # The first block's weights as small as the input's range is large (a
    # model for raw 0-255 pixels), so that the logits stay moderate.
    if blocks is None:
        x = conv_block("b1", "input", 3, 8, 0.2 / pixel_range)
        x = conv_block("b2", x, 8, 16, 0.2)
        width = 16
    else:
        x = conv_block("b1", "input", 3, 32, 0.2 / pixel_range)
        width = 32
        for index, (outputs, stride) in enumerate(blocks):
            x = conv_block("b%d" % (index + 2), x, width, outputs, (2.0 / (9 * width)) ** 0.5, stride)
            width = outputs
    nodes.extend([
        helper.make_node("GlobalAveragePool", [x], ["pooled"]),
        helper.make_node("Sigmoid", ["pooled"], ["gate"]),
        helper.make_node("Mul", ["pooled", "gate"], ["excited"]),
        helper.make_node("Shape", ["excited"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch"], ["batch1"], axes=[0]),
        helper.make_node("Concat", ["batch1", "minus_one"], ["flat_shape"], axis=0),
        helper.make_node("Reshape", ["excited", "flat_shape"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1),
    ])
    weights.extend([
        numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one"),
        tensor("fc.w", rng.normal(0, 0.5, (classes, width))),
        tensor("fc.b", rng.normal(0, 0.1, classes)),
    ])
    output = "logits"
    if classes > 1 and path.endswith("-softmax.onnx"):
        nodes.append(helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1))
        output = "probabilities"
    first = "N" if batch == "dynamic" else 1
    graph = helper.make_graph(
        nodes, "minifasnet_like",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [first, 3, size[1], size[0]])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, [first, classes])], weights)
    save(graph, path)


PICKED = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 5, 7), (1, 40, 40), (2, 79, 79), (0, 79, 0), (2, 0, 79)]


def picker(path, size, declared=None):
    """Outputs chosen input values (channel, row, column in PICKED): the
    crop and preprocessing, read back."""
    width, height = size
    weight = np.zeros((len(PICKED), 3 * width * height), dtype=np.float32)
    for row, (c, y, x) in enumerate(PICKED):
        weight[row, c * width * height + y * width + x] = 1
    nodes = [
        helper.make_node("Reshape", ["input", "flat_shape"], ["flat"]),
        helper.make_node("Gemm", ["flat", "pick"], ["picked"], transB=1),
    ]
    weights = [numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "flat_shape"), tensor("pick", weight)]
    graph = helper.make_graph(
        nodes, "picker", [helper.make_tensor_value_info("input", TensorProto.FLOAT, declared or [1, 3, height, width])],
        [helper.make_tensor_value_info("picked", TensorProto.FLOAT, [1, len(PICKED)])], weights)
    save(graph, path)


def unsupported(path):
    """An operation OpenCV 4.6's importer has no layer for."""
    nodes = [helper.make_node("ReduceMean", ["input"], ["mean"], axes=[2, 3], keepdims=0),
             helper.make_node("Det", ["square"], ["det"]),
             helper.make_node("Add", ["mean", "det"], ["out"])]
    weights = [tensor("square", np.eye(2).reshape(1, 2, 2))]
    graph = helper.make_graph(
        nodes, "unsupported", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 80, 80])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 3])], weights)
    save(graph, path)


def build(folder):
    minifasnet_like(folder + "/minifas-80.onnx", (80, 80), 3, "static", 128)
    minifasnet_like(folder + "/minifas-80-dynamic.onnx", (80, 80), 3, "dynamic", 128)
    minifasnet_like(folder + "/mn3-128-softmax.onnx", (128, 128), 2, "static")
    minifasnet_like(folder + "/one-logit-80.onnx", (80, 80), 1, "static")
    picker(folder + "/picker-80.onnx", (80, 80))
    # The same weights with the input's height and width left unnamed: only
    # running it shows that 80 x 80 is the one size it takes.
    picker(folder + "/picker-any.onnx", (80, 80), [1, 3, "height", "width"])
    unsupported(folder + "/unsupported.onnx")


class BatchNormalization(OpRun):
    """Inference, as the ONNX specification defines it for a node with one
    output: onnx's reference evaluator mixes the batch's own statistics in
    at opsets 9 to 13 (its momentum is filled with the default 0.9), which
    no runtime does at inference."""

    op_domain = ""

    def _run(self, x, scale, bias, mean, var, epsilon=None, momentum=None, training_mode=None):
        epsilon = 1e-5 if epsilon is None else epsilon
        shape = [1, -1] + [1] * (x.ndim - 2)
        normalised = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
        return ((normalised * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype),)


def reference(model, crop, width, height, channels, mean, scale):
    pixels = np.fromfile(crop, dtype=np.uint8).reshape(int(height), int(width), 3).astype(np.float32)
    if channels == "bgr":
        pixels = pixels[:, :, ::-1]
    mean = np.array([float(v) for v in mean.split(",")], dtype=np.float32)
    scale = np.array([float(v) for v in scale.split(",")], dtype=np.float32)
    tensor_input = ((pixels - mean) / scale).transpose(2, 0, 1)[np.newaxis].astype(np.float32)
    evaluator = ReferenceEvaluator(model, new_ops=[BatchNormalization])
    (output,) = evaluator.run(None, {"input": tensor_input})
    print(" ".join(repr(float(v)) for v in output.reshape(-1)))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "bench":
        minifasnet_like(sys.argv[2] + "/minifasnet-v2-size.onnx", (80, 80), 3, "static", 128,
                        blocks=[(64, 1), (128, 2), (128, 2), (128, 2)])
    else:
        reference(*sys.argv[2:])
