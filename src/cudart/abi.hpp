// The C ABI of libcudart as CUDA 13.0 declares it (cuda_runtime_api.h, driver_types.h,
// vector_types.h), declared here so the library builds without the toolkit headers. Layouts are
// checked against the real headers by tests/cudart/abi_layout_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsim::cudart::abi {

using Error = int;  // cudaError_t (enum cudaError: int-sized)

enum : Error {
  Success = 0,
  ErrInvalidValue = 1,
  ErrMemoryAllocation = 2,
  ErrInitialization = 3,
  ErrInvalidConfiguration = 9,
  ErrInvalidSymbol = 13,
  ErrInvalidDevicePointer = 17,
  ErrInvalidMemcpyDirection = 21,
  ErrLaunchOutOfResources = 701,
  ErrInvalidPitchValue = 12,
  ErrMissingConfiguration = 52,
  ErrInvalidDeviceFunction = 98,
  ErrNoDevice = 100,
  ErrInvalidDevice = 101,
  ErrNoKernelImageForDevice = 209,
  ErrInvalidPtx = 218,
  ErrInvalidResourceHandle = 400,
  ErrIllegalState = 401,
  ErrSymbolNotFound = 500,
  ErrNotReady = 600,
  ErrIllegalAddress = 700,
  ErrHostMemoryAlreadyRegistered = 712,
  ErrHostMemoryNotRegistered = 713,
  ErrLaunchFailure = 719,
  ErrPeerAccessUnsupported = 217,
  ErrPeerAccessNotEnabled = 705,
  ErrCooperativeLaunchTooLarge = 720,
  ErrNotSupported = 801,
  ErrGraphExecUpdateFailure = 910,
  ErrInvalidClusterSize = 912,
  ErrStreamCaptureUnsupported = 900,
  ErrStreamCaptureUnmatched = 903,
  ErrUnknown = 999,
};

struct Dim3 {
  unsigned int x, y, z;
};

struct Uuid {
  char bytes[16];
};

enum MemcpyKind : int { HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3, Default = 4 };

struct DeviceProp {
  char name[256];
  Uuid uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];};

// cudaDeviceProp as CUDA 12's headers lay it out (cudaGetDeviceProperties_v2 of libcudart.so.12):
// CUDA 13's fields with the eight CUDA 13 removed in their places.
struct DeviceProp12 {
  char name[256];
  Uuid uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
  int clockRate;  // removed in 13
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap;  // removed in 13
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;  // removed in 13
  int integrated, canMapHostMemory;
  int computeMode;  // removed in 13
  int maxTexture1D, maxTexture1DMipmap;
  int maxTexture1DLinear;  // removed in 13
  int maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3],
      maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3],
      maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2],
      maxSurface2DLayered[3], maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount,
      unifiedAddressing;
  int memoryClockRate;  // removed in 13
  int memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported,
      globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported;
  int singleToDoublePrecisionPerfRatio;  // removed in 13
  int pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
      cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;  // removed in 13
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor,
      accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  // From here on as CUDA 13 (hostRegisterSupported ... hostNumaMultinodeIpcSupported, reserved).
  unsigned char tail[sizeof(DeviceProp) - offsetof(DeviceProp, hostRegisterSupported)];
};
static_assert(sizeof(DeviceProp12) == 1032, "CUDA 12's cudaDeviceProp is 1032 bytes");

struct FuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

// cudaPitchedPtr, cudaExtent, cudaPos, cudaMemcpy3DParms (driver_types.h).
struct PitchedPtr {
  void* ptr;
  size_t pitch, xsize, ysize;
};
struct Extent {
  size_t width, height, depth;
};
struct Pos {
  size_t x, y, z;
};
struct Memcpy3DParms {
  void* srcArray;
  Pos srcPos;
  PitchedPtr srcPtr;
  void* dstArray;
  Pos dstPos;
  PitchedPtr dstPtr;
  Extent extent;
  int kind;
};

// cudaMemcpy3DPeerParms.
struct Memcpy3DPeerParms {
  void* srcArray;
  Pos srcPos;
  PitchedPtr srcPtr;
  int srcDevice;
  void* dstArray;
  Pos dstPos;
  PitchedPtr dstPtr;
  int dstDevice;
  Extent extent;
};
// Batched copies (CUDA 12.8+): cudaMemcpyAttributes, cudaMemcpy3DOperand, cudaMemcpy3DBatchOp; the
// driver's CUmemcpyAttributes / CUmemcpy3DOperand / CUDA_MEMCPY3D_BATCH_OP are laid out the same.
struct MemLoc {
  int type, id;
};
struct MemcpyAttributes {
  int srcAccessOrder;  // 1 stream order, 2 during the call, 3 any
  MemLoc srcLocHint, dstLocHint;
  unsigned flags;
};
struct Memcpy3DOperand {
  int type;  // 1 pointer, 2 array
  union {
    struct {
      void* ptr;
      size_t rowLength, layerHeight;  // in elements; 0: packed to the copy's extent
      MemLoc locHint;
    } ptr;
    struct {
      void* array;
      Pos offset;  // in elements
    } array;
  } op;
};
struct Memcpy3DBatchOp {
  Memcpy3DOperand src, dst;
  Extent extent;  // in elements (bytes between two pointers)
  int srcAccessOrder;
  unsigned flags;
};

struct PointerAttributes {
  int type;  // enum cudaMemoryType: 0 unregistered, 1 host, 2 device, 3 managed
  int device;
  void* devicePointer;
  void* hostPointer;
  long reserved[8];
};

// Opaque handles: pointers to our own objects.
using Stream = void*;  // cudaStream_t (CUstream_st*)

// L2 residency control (driver_types.h): cudaLimitPersistingL2CacheSize, enum cudaAccessProperty,
// struct cudaAccessPolicyWindow, and the launch/stream attribute that carries it.
constexpr int LimitPersistingL2CacheSize = 6;
enum AccessProperty : int { AccessPropertyNormal = 0, AccessPropertyStreaming = 1, AccessPropertyPersisting = 2 };
struct AccessPolicyWindow {
  void* base_ptr;
  size_t num_bytes;
  float hitRatio;
  AccessProperty hitProp;
  AccessProperty missProp;
};
constexpr int LaunchAttributeAccessPolicyWindow = 1;  // = cudaStreamAttributeAccessPolicyWindow
constexpr int LaunchAttributeCooperative = 2;         // cudaLaunchAttributeCooperative
constexpr int LaunchAttributeClusterDimension = 4;    // cudaLaunchAttributeClusterDimension
// cudaLaunchAttributeValue (= cudaStreamAttrValue): a 64-byte union.
union LaunchAttributeValue {
  char pad[64];
  AccessPolicyWindow accessPolicyWindow;
  int cooperative;
  int priority;
  struct {
    unsigned x, y, z;
  } clusterDim;
};
// cudaLaunchAttribute: the id, padded to 8 bytes, then the value.
struct LaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  LaunchAttributeValue val;
};
// cudaLaunchConfig_t.
struct LaunchConfig {
  Dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  void* stream;
  LaunchAttribute* attrs;
  unsigned int numAttrs;
};
// cudaChannelFormatDesc, cudaResourceDesc, cudaTextureDesc (driver_types.h, texture_types.h).
struct ChannelFormatDesc {
  int x, y, z, w;
  int f;  // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float, 3 none
};
struct ResourceDesc {
  int resType;  // 0 array, 1 mipmapped array, 2 linear, 3 pitch2D
  union {
    struct {
      void* array;
    } array;
    struct {
      void* mipmap;
    } mipmap;
    struct {
      void* devPtr;
      ChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      ChannelFormatDesc desc;
      size_t width, height, pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned flags;
};
struct TextureDesc {
  int addressMode[3];
  int filterMode;
  int readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
static_assert(sizeof(ChannelFormatDesc) == 20);
static_assert(sizeof(ResourceDesc) == 144);
static_assert(sizeof(TextureDesc) == 72);
// cudaKernelNodeParams.
struct KernelNodeParams {
  void* func;
  Dim3 gridDim;
  Dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};

// ---- graph node parameters (driver_types.h)
// cudaMemsetParams(V2), cudaHostNodeParams(V2) (driver_types.h); cudaKernelNodeParams is in abi.hpp.
struct MemsetParams {
  void* dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};
struct HostNodeParams {
  void (*fn)(void*);
  void* userData;
};
// cudaMemLocation, cudaMemPoolProps, cudaMemAllocNodeParams(V2).
struct MemPoolProps {
  int allocType, handleTypes;
  struct {
    int type, id;
  } location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
struct MemAllocNodeParams {
  MemPoolProps poolProps;
  const void* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
// cudaConditionalNodeParams (CUDA_CONDITIONAL_NODE_PARAMS has a context after it).
struct ConditionalNodeParams {
  unsigned long long handle;
  int type;
  unsigned int size;
  void** phGraph_out;
};
// cudaGraphNodeParams: the type, then a union at byte 16 of 232 bytes, then 8 reserved bytes.
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    KernelNodeParams kernel;
    struct {
      int flags;
      int reserved[3];
      Memcpy3DParms copyParams;
    } memcpy;
    MemsetParams memset;
    HostNodeParams host;
    struct {
      void* graph;
      int ownership;  // cudaGraphChildGraphOwnershipClone 0, Move 1
    } graph;
    struct {
      void* event;
    } event;
    MemAllocNodeParams alloc;
    struct {
      void* dptr;
    } free;
    ConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(GraphNodeParams) == 256, "cudaGraphNodeParams is 256 bytes");

// cudaGraphInstantiateParams: flags, upload stream, error node (out), cudaGraphInstantiateResult (out:
// 0 success, 1 error).
struct GraphInstantiateParams {
  unsigned long long flags;
  void* uploadStream;
  void* errNode_out;
  int result_out;
};
// cudaGraphExecUpdateResultInfo.
struct GraphExecUpdateResultInfo {
  int result;  // cudaGraphExecUpdateSuccess 0, ...ErrorTopologyChanged 2, ...NodeTypeChanged 3, ...FunctionChanged 5
  void* errorNode;
  void* errorFromNode;
};

using Event = void*;   // cudaEvent_t
using Kernel = void*;  // cudaKernel_t

}  // namespace warpsim::cudart::abi
