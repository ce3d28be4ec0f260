// cub_device.cu built for sm_90 (CCCL picks its Hopper kernels: DeviceTransform through bulk copies).
#include "cub_device.cu"
