#version 450
// Peak calibration: the cost of a dispatch that does nothing.
#include "p3lab.glsl"
layout(local_size_x_id = 0) in;
void main() {
    p3_probe_record();
}
