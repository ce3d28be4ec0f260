#include "cudart/device_props.hpp"

#include <algorithm>
#include <cstring>

namespace warpsim::cudart {

void fill_props(const runtime::GpuSpec& g, abi::DeviceProp& p) {
  std::memset(&p, 0, sizeof p);
  std::strncpy(p.name, g.name.c_str(), sizeof p.name - 1);
  std::memcpy(p.uuid.bytes, "warpsim-gpu-0000", 16);
  p.totalGlobalMem = g.global_mem;
  p.sharedMemPerBlock = g.smem_per_block;
  p.regsPerBlock = g.regs_per_block;
  p.warpSize = g.warp_size;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = g.max_threads_per_block;
  for (int i = 0; i < 3; ++i) {
    p.maxThreadsDim[i] = g.max_block_dim[i];
    p.maxGridSize[i] = g.max_grid_dim[i];
  }
  p.totalConstMem = g.const_mem;
  p.major = g.cc_major;
  p.clusterLaunch = g.cc_major >= 9;  // thread-block clusters (sm_90)
  p.minor = g.cc_minor;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = g.sm_count;
  p.canMapHostMemory = 1;
  p.maxTexture1D = 131072;
  p.maxTexture2D[0] = 131072;
  p.maxTexture2D[1] = 65536;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.ECCEnabled = 1;
  p.pciBusID = g.pci_bus_id;
  p.pciDeviceID = g.pci_device_id;
  p.pciDomainID = g.pci_domain_id;
  p.asyncEngineCount = 3;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = g.mem_bus_width;
  p.l2CacheSize = g.l2_bytes;
  p.persistingL2CacheMaxSize = g.persisting_l2_max;
  p.maxThreadsPerMultiProcessor = g.max_threads_per_sm;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = g.smem_per_sm;
  p.regsPerMultiprocessor = g.regs_per_sm;
  p.managedMemory = 1;
  p.hostNativeAtomicSupported = 0;
  p.concurrentManagedAccess = 0;  // managed data is synchronised at kernel boundaries
  p.computePreemptionSupported = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = g.smem_per_block_optin;
  p.maxBlocksPerMultiProcessor = g.max_blocks_per_sm;
  p.accessPolicyMaxWindowSize = g.access_policy_max_window;
  p.reservedSharedMemPerBlock = g.reserved_smem_per_block;
  p.hostRegisterSupported = 1;
  p.memoryPoolsSupported = 1;
  p.deviceNumaId = -1;
  p.hostNumaId = -1;
}

bool device_attribute(const runtime::GpuSpec& g, int attr, int& v) {
  switch (attr) {
    case 1: v = g.max_threads_per_block; return true;
    case 2: case 3: case 4: v = g.max_block_dim[attr - 2]; return true;
    case 5: case 6: case 7: v = g.max_grid_dim[attr - 5]; return true;
    case 8: v = int(g.smem_per_block); return true;
    case 9: v = int(g.const_mem); return true;
    case 10: v = g.warp_size; return true;
    case 11: v = 2147483647; return true;
    case 12: v = g.regs_per_block; return true;
    case 13: v = g.clock_khz; return true;
    case 14: v = 512; return true;
    case 15: v = 1; return true;
    case 16: v = g.sm_count; return true;
    case 17: case 18: case 20: v = 0; return true;
    case 19: v = 1; return true;
    case 30: v = 512; return true;
    case 31: v = 1; return true;
    case 32: v = 1; return true;
    case 33: v = g.pci_bus_id; return true;
    case 34: v = g.pci_device_id; return true;
    case 35: v = 0; return true;
    case 36: v = g.mem_clock_khz; return true;
    case 37: v = g.mem_bus_width; return true;
    case 38: v = g.l2_bytes; return true;
    case 39: v = g.max_threads_per_sm; return true;
    case 40: v = 3; return true;
    case 41: v = 1; return true;
    case 50: v = g.pci_domain_id; return true;
    case 51: v = 32; return true;
    case 75: v = g.cc_major; return true;
    case 76: v = g.cc_minor; return true;
    case 78: case 79: case 80: v = 1; return true;
    case 81: v = int(g.smem_per_sm); return true;
    case 82: v = g.regs_per_sm; return true;
    case 83: v = 1; return true;
    case 84: case 85: case 86: v = 0; return true;
    case 87: v = 2; return true;
    case 88: case 89: v = 0; return true;
    case 90: v = 1; return true;
    // cudaDevAttrCanUseHostPointerForRegisteredMem: registered memory has a device mirror at
    // another address (cudaHostRegister in api_memory.cpp).
    case 91: v = 0; return true;
    case 95: v = 1; return true;
    case 97: v = int(g.smem_per_block_optin); return true;
    case 98: case 99: v = 1; return true;
    case 100: case 101: v = 0; return true;
    // Virtual memory management (cuMemCreate, cuMemMap, ...: driver_vmm.cpp).
    case 102: v = 1; return true;
    case 106: v = g.max_blocks_per_sm; return true;
    case 108: v = g.persisting_l2_max; return true;
    case 109: v = g.access_policy_max_window; return true;
    case 111: v = int(g.reserved_smem_per_block); return true;
    case 115: v = 1; return true;
    case 120: v = g.cc_major >= 9; return true;  // cudaDevAttrClusterLaunch: thread-block clusters are sm_90
    case 130: v = 0; return true;
    case 131: case 134: v = -1; return true;
    default:
      if (attr >= 21 && attr <= 74) {  // texture/surface limits: report the cc 8.0 values loosely
        v = 65536;
        return true;
      }
      return false;
  }
}

}  // namespace warpsim::cudart
