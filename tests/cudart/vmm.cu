// The driver's virtual memory management: reserve a range, map three physical allocations side by
// side (released right after mapping, as allocators do), grant access, fill the whole range from a
// kernel and check it (CPU reference); unmap a handle and map it into another reservation (its
// contents move with it); handle queries; the errors for bad sizes, addresses and handles.
// Expected output as our H100 printed it.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                        \
  do {                                                                  \
    CUresult r_ = (x);                                                  \
    if (r_ != CUDA_SUCCESS) {                                           \
      std::printf("FAIL %s -> %d at line %d\n", #x, int(r_), __LINE__); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

__global__ void fill(unsigned* p, size_t n, unsigned salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = unsigned(i) * 2654435761u ^ salt;
}

static bool check(const std::vector<unsigned>& h, unsigned salt) {
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i] != (unsigned(i) * 2654435761u ^ salt)) return false;
  return true;
}

int main() {
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));

  int vmm_supported = 0;
  CHECK(cuDeviceGetAttribute(&vmm_supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  std::printf("virtual memory management supported: %d\n", vmm_supported);
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0, rec = 0;
  CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CHECK(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  std::printf("granularity: minimum %zu, recommended %zu\n", gran, rec);

  // Three allocations side by side in one reservation.
  const size_t total = 3 * gran;
  CUdeviceptr va;
  CHECK(cuMemAddressReserve(&va, total, 0, 0, 0));
  std::printf("reservation aligned to the granularity: %s\n", va % gran == 0 ? "yes" : "no");
  for (int i = 0; i < 3; ++i) {
    CUmemGenericAllocationHandle h;
    CHECK(cuMemCreate(&h, gran, &prop, 0));
    CHECK(cuMemMap(va + i * gran, gran, 0, h, 0));
    CHECK(cuMemRelease(h));  // the mapping keeps it alive
  }
  CUmemAccessDesc access = {};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 0;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK(cuMemSetAccess(va, total, &access, 1));
  unsigned long long flags = 0;
  CHECK(cuMemGetAccess(&flags, &access.location, va + gran + 64));
  std::printf("access flags in the middle mapping: %llu\n", flags);
  const size_t n = total / sizeof(unsigned);
  fill<<<256, 256>>>(reinterpret_cast<unsigned*>(va), n, 0x5a5a5a5au);
  CHECK(cuCtxSynchronize());
  std::vector<unsigned> h(n);
  CHECK(cuMemcpyDtoH(h.data(), va, total));
  std::printf("kernel across three mappings: %s\n", check(h, 0x5a5a5a5au) ? "PASS" : "FAIL");

  // Queries on a mapped address.
  CUmemGenericAllocationHandle got;
  CHECK(cuMemRetainAllocationHandle(&got, reinterpret_cast<void*>(va + 2 * gran + 100)));
  CUmemAllocationProp back = {};
  CHECK(cuMemGetAllocationPropertiesFromHandle(&back, got));
  std::printf("properties: type %d, location type %d id %d\n", int(back.type), int(back.location.type), back.location.id);
  CHECK(cuMemRelease(got));

  // Errors.
  CUmemGenericAllocationHandle bad;
  std::printf("cuMemCreate of a size not a multiple of the granularity: %d\n", int(cuMemCreate(&bad, gran + 4096, &prop, 0)));
  std::printf("cuMemAddressReserve of a size not a multiple of the granularity: %d\n",
              int(cuMemAddressReserve(&va, gran / 2, 0, 0, 0)) == 0 ? 0 : 1);
  std::printf("cuMemAddressFree of a range still mapped: %d\n", int(cuMemAddressFree(va, total)) == 0 ? 0 : 1);

  // Unmap everything (one call over the three mappings) and free the range.
  CHECK(cuMemUnmap(va, total));
  std::printf("cuMemSetAccess on an unmapped range: %d\n", int(cuMemSetAccess(va, total, &access, 1)));
  CHECK(cuMemAddressFree(va, total));

  // A handle's contents move with it: map, fill, unmap, map elsewhere, read.
  CUmemGenericAllocationHandle keep;
  CHECK(cuMemCreate(&keep, gran, &prop, 0));
  CUdeviceptr a, b;
  CHECK(cuMemAddressReserve(&a, gran, 0, 0, 0));
  CHECK(cuMemAddressReserve(&b, 2 * gran, 0, 0, 0));
  CHECK(cuMemMap(a, gran, 0, keep, 0));
  CHECK(cuMemSetAccess(a, gran, &access, 1));
  const size_t m = gran / sizeof(unsigned);
  fill<<<128, 256>>>(reinterpret_cast<unsigned*>(a), m, 0x1234u);
  CHECK(cuCtxSynchronize());
  CHECK(cuMemUnmap(a, gran));
  CHECK(cuMemMap(b + gran, gran, 0, keep, 0));
  CHECK(cuMemSetAccess(b + gran, gran, &access, 1));
  std::vector<unsigned> hb(m);
  CHECK(cuMemcpyDtoH(hb.data(), b + gran, gran));
  std::printf("contents after remapping: %s\n", check(hb, 0x1234u) ? "PASS" : "FAIL");
  CHECK(cuMemUnmap(b + gran, gran));
  CHECK(cuMemRelease(keep));
  CHECK(cuMemAddressFree(a, gran));
  CHECK(cuMemAddressFree(b, 2 * gran));
  std::printf("done\n");
  return 0;
}
