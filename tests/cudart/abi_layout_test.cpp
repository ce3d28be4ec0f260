// warpsim's own declarations of the CUDA runtime ABI (src/cudart/abi.hpp) against the real
// CUDA headers: sizes and field offsets must match exactly.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "cudart/abi.hpp"

namespace wabi = warpsim::cudart::abi;

#define SAME_OFFSET(ours, theirs, field) \
  static_assert(offsetof(ours, field) == offsetof(theirs, field), #field " offset differs")

static_assert(sizeof(wabi::DeviceProp) == sizeof(cudaDeviceProp), "cudaDeviceProp size differs");
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, totalGlobalMem);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, major);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, multiProcessorCount);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, l2CacheSize);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, sharedMemPerMultiprocessor);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, sharedMemPerBlockOptin);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, maxBlocksPerMultiProcessor);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, reservedSharedMemPerBlock);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, hostNumaMultinodeIpcSupported);
SAME_OFFSET(wabi::DeviceProp, cudaDeviceProp, reserved);

// Peer and batched copies.
static_assert(sizeof(wabi::Memcpy3DPeerParms) == sizeof(cudaMemcpy3DPeerParms), "cudaMemcpy3DPeerParms size differs");
SAME_OFFSET(wabi::Memcpy3DPeerParms, cudaMemcpy3DPeerParms, srcDevice);
SAME_OFFSET(wabi::Memcpy3DPeerParms, cudaMemcpy3DPeerParms, dstArray);
SAME_OFFSET(wabi::Memcpy3DPeerParms, cudaMemcpy3DPeerParms, dstDevice);
SAME_OFFSET(wabi::Memcpy3DPeerParms, cudaMemcpy3DPeerParms, extent);
static_assert(sizeof(wabi::MemcpyAttributes) == sizeof(cudaMemcpyAttributes), "cudaMemcpyAttributes size differs");
SAME_OFFSET(wabi::MemcpyAttributes, cudaMemcpyAttributes, dstLocHint);
SAME_OFFSET(wabi::MemcpyAttributes, cudaMemcpyAttributes, flags);
static_assert(sizeof(wabi::Memcpy3DBatchOp) == sizeof(cudaMemcpy3DBatchOp), "cudaMemcpy3DBatchOp size differs");
SAME_OFFSET(wabi::Memcpy3DBatchOp, cudaMemcpy3DBatchOp, dst);
SAME_OFFSET(wabi::Memcpy3DBatchOp, cudaMemcpy3DBatchOp, extent);
SAME_OFFSET(wabi::Memcpy3DBatchOp, cudaMemcpy3DBatchOp, srcAccessOrder);
SAME_OFFSET(wabi::Memcpy3DBatchOp, cudaMemcpy3DBatchOp, flags);
static_assert(offsetof(wabi::Memcpy3DOperand, op.ptr.layerHeight) == offsetof(cudaMemcpy3DOperand, op.ptr.layerHeight));
static_assert(offsetof(wabi::Memcpy3DOperand, op.ptr.locHint) == offsetof(cudaMemcpy3DOperand, op.ptr.locHint));
static_assert(offsetof(wabi::Memcpy3DOperand, op.array.offset) == offsetof(cudaMemcpy3DOperand, op.array.offset));

// Graph node parameters (CUDA 12.4+ / 13).
static_assert(sizeof(wabi::GraphNodeParams) == sizeof(cudaGraphNodeParams), "cudaGraphNodeParams size differs");
SAME_OFFSET(wabi::GraphNodeParams, cudaGraphNodeParams, kernel);
SAME_OFFSET(wabi::GraphNodeParams, cudaGraphNodeParams, reserved2);
static_assert(offsetof(wabi::GraphNodeParams, memcpy.copyParams) == offsetof(cudaGraphNodeParams, memcpy.copyParams));
static_assert(offsetof(wabi::GraphNodeParams, conditional.phGraph_out) ==
              offsetof(cudaGraphNodeParams, conditional.phGraph_out));
static_assert(offsetof(wabi::GraphNodeParams, alloc.dptr) == offsetof(cudaGraphNodeParams, alloc.dptr));
static_assert(offsetof(wabi::GraphNodeParams, graph.ownership) == offsetof(cudaGraphNodeParams, graph.ownership));
static_assert(sizeof(wabi::MemAllocNodeParams) == sizeof(cudaMemAllocNodeParams), "cudaMemAllocNodeParams size differs");
SAME_OFFSET(wabi::MemAllocNodeParams, cudaMemAllocNodeParams, bytesize);
SAME_OFFSET(wabi::MemAllocNodeParams, cudaMemAllocNodeParams, dptr);
static_assert(sizeof(wabi::MemsetParams) == sizeof(cudaMemsetParams), "cudaMemsetParams size differs");
SAME_OFFSET(wabi::MemsetParams, cudaMemsetParams, height);
static_assert(sizeof(wabi::GraphInstantiateParams) == sizeof(cudaGraphInstantiateParams));
SAME_OFFSET(wabi::GraphInstantiateParams, cudaGraphInstantiateParams, result_out);
static_assert(sizeof(wabi::GraphExecUpdateResultInfo) == sizeof(cudaGraphExecUpdateResultInfo));
static_assert(sizeof(wabi::ConditionalNodeParams) == sizeof(cudaConditionalNodeParams));
// CUDA 12's cudaDeviceProp (no CUDA 12 headers here): offsets from its driver_types.h (12.3),
// worked out by hand: clockRate after maxGridSize, deviceOverlap after texturePitchAlignment, ...
static_assert(offsetof(wabi::DeviceProp12, clockRate) == 348);
static_assert(offsetof(wabi::DeviceProp12, totalConstMem) == 352);
static_assert(offsetof(wabi::DeviceProp12, deviceOverlap) == 384);
static_assert(offsetof(wabi::DeviceProp12, computeMode) == 404);
static_assert(offsetof(wabi::DeviceProp12, memoryClockRate) == offsetof(wabi::DeviceProp12, unifiedAddressing) + 4);
static_assert(sizeof(wabi::DeviceProp12) == 1032);
static_assert(sizeof(wabi::FuncAttributes) == sizeof(cudaFuncAttributes), "cudaFuncAttributes size differs");
SAME_OFFSET(wabi::FuncAttributes, cudaFuncAttributes, ptxVersion);
SAME_OFFSET(wabi::FuncAttributes, cudaFuncAttributes, maxDynamicSharedSizeBytes);
SAME_OFFSET(wabi::FuncAttributes, cudaFuncAttributes, nonPortableClusterSizeAllowed);
static_assert(sizeof(wabi::PointerAttributes) == sizeof(cudaPointerAttributes), "cudaPointerAttributes size differs");
SAME_OFFSET(wabi::PointerAttributes, cudaPointerAttributes, devicePointer);
static_assert(sizeof(wabi::Dim3) == sizeof(dim3), "dim3 size differs");
static_assert(sizeof(wabi::AccessPolicyWindow) == sizeof(cudaAccessPolicyWindow), "cudaAccessPolicyWindow size differs");
SAME_OFFSET(wabi::AccessPolicyWindow, cudaAccessPolicyWindow, num_bytes);
SAME_OFFSET(wabi::AccessPolicyWindow, cudaAccessPolicyWindow, hitRatio);
SAME_OFFSET(wabi::AccessPolicyWindow, cudaAccessPolicyWindow, hitProp);
SAME_OFFSET(wabi::AccessPolicyWindow, cudaAccessPolicyWindow, missProp);
static_assert(sizeof(wabi::LaunchAttributeValue) == sizeof(cudaLaunchAttributeValue), "cudaLaunchAttributeValue size differs");
static_assert(sizeof(wabi::LaunchAttributeValue) == sizeof(cudaStreamAttrValue), "cudaStreamAttrValue size differs");
static_assert(sizeof(wabi::LaunchAttribute) == sizeof(cudaLaunchAttribute), "cudaLaunchAttribute size differs");
SAME_OFFSET(wabi::LaunchAttribute, cudaLaunchAttribute, val);
static_assert(sizeof(wabi::LaunchConfig) == sizeof(cudaLaunchConfig_t), "cudaLaunchConfig_t size differs");
SAME_OFFSET(wabi::LaunchConfig, cudaLaunchConfig_t, dynamicSmemBytes);
SAME_OFFSET(wabi::LaunchConfig, cudaLaunchConfig_t, stream);
SAME_OFFSET(wabi::LaunchConfig, cudaLaunchConfig_t, attrs);
SAME_OFFSET(wabi::LaunchConfig, cudaLaunchConfig_t, numAttrs);
static_assert(sizeof(wabi::Error) == sizeof(cudaError_t), "cudaError_t size differs");

TEST(CudartAbi, ErrorValuesMatch) {
  EXPECT_EQ(wabi::ErrInvalidValue, cudaErrorInvalidValue);
  EXPECT_EQ(wabi::ErrMemoryAllocation, cudaErrorMemoryAllocation);
  EXPECT_EQ(wabi::ErrInvalidConfiguration, cudaErrorInvalidConfiguration);
  EXPECT_EQ(wabi::ErrInvalidSymbol, cudaErrorInvalidSymbol);
  EXPECT_EQ(wabi::ErrInvalidMemcpyDirection, cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(wabi::ErrMissingConfiguration, cudaErrorMissingConfiguration);
  EXPECT_EQ(wabi::ErrInvalidDeviceFunction, cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(wabi::ErrInvalidDevice, cudaErrorInvalidDevice);
  EXPECT_EQ(wabi::ErrNoKernelImageForDevice, cudaErrorNoKernelImageForDevice);
  EXPECT_EQ(wabi::ErrInvalidPtx, cudaErrorInvalidPtx);
  EXPECT_EQ(wabi::ErrInvalidResourceHandle, cudaErrorInvalidResourceHandle);
  EXPECT_EQ(wabi::ErrIllegalAddress, cudaErrorIllegalAddress);
  EXPECT_EQ(wabi::ErrLaunchFailure, cudaErrorLaunchFailure);
  EXPECT_EQ(wabi::ErrNotSupported, cudaErrorNotSupported);
  EXPECT_EQ(int(wabi::Default), int(cudaMemcpyDefault));
  EXPECT_EQ(wabi::LimitPersistingL2CacheSize, int(cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(wabi::LaunchAttributeAccessPolicyWindow, int(cudaLaunchAttributeAccessPolicyWindow));
  EXPECT_EQ(wabi::LaunchAttributeAccessPolicyWindow, int(cudaStreamAttributeAccessPolicyWindow));
  EXPECT_EQ(int(wabi::AccessPropertyNormal), int(cudaAccessPropertyNormal));
  EXPECT_EQ(int(wabi::AccessPropertyStreaming), int(cudaAccessPropertyStreaming));
  EXPECT_EQ(int(wabi::AccessPropertyPersisting), int(cudaAccessPropertyPersisting));
}

static_assert(sizeof(wabi::PitchedPtr) == sizeof(cudaPitchedPtr), "cudaPitchedPtr size differs");
static_assert(sizeof(wabi::Extent) == sizeof(cudaExtent), "cudaExtent size differs");
static_assert(sizeof(wabi::Memcpy3DParms) == sizeof(cudaMemcpy3DParms), "cudaMemcpy3DParms size differs");
SAME_OFFSET(wabi::Memcpy3DParms, cudaMemcpy3DParms, dstPtr);
SAME_OFFSET(wabi::Memcpy3DParms, cudaMemcpy3DParms, extent);
SAME_OFFSET(wabi::Memcpy3DParms, cudaMemcpy3DParms, kind);
