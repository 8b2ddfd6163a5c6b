#!/bin/sh
# Writes configs/data/resnet50-layers.csv: the parameter tensors of ResNet-50
# (He et al., "Deep Residual Learning for Image Recognition", CVPR 2016,
# Table 1, 50-layer column; the bottleneck form of torchvision's resnet50,
# whose parameter count 25,557,032 this reproduces) in forward order, one row
# per layer that has trainable parameters (every convolution, every batch
# normalisation, the classifier), with the bytes of its fp32 gradient: the
# tensors Horovod allreduces (seed 002 sec. 3-4 train ResNet-50 this way).
#
# Derivation, per layer (no biases in the convolutions; a batch
# normalisation over C channels trains gamma and beta, 2C; its running mean
# and variance are buffers, never reduced):
#   conv k x k, c_in -> c_out : k k c_in c_out
#   bn over c                  : 2 c
#   fc 2048 -> 1000            : 2048 x 1000 + 1000
# stem: conv 7x7 3 -> 64, bn 64. Then 4 stages of [3, 4, 6, 3] bottleneck
# blocks of width w = 64, 128, 256, 512 (output 4w): 1x1 c_in -> w, bn w,
# 3x3 w -> w, bn w, 1x1 w -> 4w, bn 4w, and in the first block of a stage
# a projection shortcut 1x1 c_in -> 4w, bn 4w (after the block's convs, as
# torchvision registers it).
# Usage: scripts/resnet50-layers.sh > configs/data/resnet50-layers.csv
set -eu
awk 'BEGIN {
    n = 0; total = 0
    print "# ResNet-50 layers with trainable parameters, forward order; written by scripts/resnet50-layers.sh"
    print "# (derivation in its head: He et al. CVPR 2016 Table 1, bottleneck blocks [3,4,6,3], torchvision layout)."
    print "# size_bytes = 4 x params (fp32 gradients). Total: 25557032 parameters = 102228128 bytes."
    print "layer,name,params,size_bytes"
    conv("conv1", 7, 3, 64); bn("bn1", 64)
    split("3 4 6 3", blocks, " "); split("64 128 256 512", width, " ")
    cin = 64
    for (s = 1; s <= 4; s++) {
        w = width[s]
        for (b = 0; b < blocks[s]; b++) {
            p = sprintf("layer%d.%d.", s, b)
            conv(p "conv1", 1, cin, w); bn(p "bn1", w)
            conv(p "conv2", 3, w, w); bn(p "bn2", w)
            conv(p "conv3", 1, w, 4 * w); bn(p "bn3", 4 * w)
            if (b == 0) { conv(p "downsample.0", 1, cin, 4 * w); bn(p "downsample.1", 4 * w) }
            cin = 4 * w
        }
    }
    row("fc", 2048 * 1000 + 1000)
    if (total != 25557032) { print "resnet50-layers.sh: total " total " != 25557032" > "/dev/stderr"; exit 1 }
}
function conv(name, k, ci, co) { row(name, k * k * ci * co) }
function bn(name, c) { row(name, 2 * c) }
function row(name, params) { printf "%d,%s,%d,%d\n", n++, name, params, 4 * params; total += params }'
