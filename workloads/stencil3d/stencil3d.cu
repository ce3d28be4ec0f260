// stencil3d: 7-point 3D stencil (out = c0*u + c1*(six neighbours)) on a 40x36x28 grid
// (not a multiple of the 8x8x8 block), Dirichlet boundary (boundary points copied). Each
// 8x8x8 block stages a 10x10x10 halo tile in shared memory with a cooperative strided load,
// then computes; a second variant marches in z with a 2D 16x16 block keeping the z-1/z+1
// values in registers and only the current plane (with x/y halo) in shared memory.
// Two time steps (ping-pong) per variant. Tolerance 1e-5*(1+|ref|) against a CPU reference.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("stencil3d: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 5150u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

constexpr float C0 = 0.4f, C1 = 0.1f;
constexpr int B = 8, H = B + 2;

__device__ __forceinline__ bool interior(int x, int y, int z, int nx, int ny, int nz) {
    return x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 && z < nz - 1;
}

__global__ void stencil_tile3d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz) {
    __shared__ float t[H][H][H];
    int bx = blockIdx.x * B - 1, by = blockIdx.y * B - 1, bz = blockIdx.z * B - 1;
    int tid = threadIdx.x + B * (threadIdx.y + B * threadIdx.z);
    for (int i = tid; i < H * H * H; i += B * B * B) {
        int lx = i % H, ly = (i / H) % H, lz = i / (H * H);
        int gx = bx + lx, gy = by + ly, gz = bz + lz;
        float v = 0.f;
        if (gx >= 0 && gy >= 0 && gz >= 0 && gx < nx && gy < ny && gz < nz) v = in[((size_t)gz * ny + gy) * nx + gx];
        t[lz][ly][lx] = v;
    }
    __syncthreads();
    int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y, z = blockIdx.z * B + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1, lz = threadIdx.z + 1;
    float c = t[lz][ly][lx];
    float r = c;
    if (interior(x, y, z, nx, ny, nz))
        r = C0 * c + C1 * (t[lz][ly][lx - 1] + t[lz][ly][lx + 1] + t[lz][ly - 1][lx] + t[lz][ly + 1][lx] +
                           t[lz - 1][ly][lx] + t[lz + 1][ly][lx]);
    out[((size_t)z * ny + y) * nx + x] = r;
}

constexpr int P = 16;
__global__ void stencil_zmarch(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz) {
    __shared__ float plane[P + 2][P + 2];
    int x = blockIdx.x * P + threadIdx.x, y = blockIdx.y * P + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    bool inside = x < nx && y < ny;
    size_t sz = (size_t)nx * ny;
    float below = 0.f, cur = inside ? in[(size_t)y * nx + x] : 0.f, above = 0.f;
    for (int z = 0; z < nz; ++z) {
        above = (inside && z + 1 < nz) ? in[(z + 1) * sz + (size_t)y * nx + x] : 0.f;
        plane[ly][lx] = cur;
        if (threadIdx.x == 0) plane[ly][0] = (x > 0 && y < ny) ? in[z * sz + (size_t)y * nx + x - 1] : 0.f;
        if (threadIdx.x == P - 1) plane[ly][P + 1] = (x + 1 < nx && y < ny) ? in[z * sz + (size_t)y * nx + x + 1] : 0.f;
        if (threadIdx.y == 0) plane[0][lx] = (y > 0 && x < nx) ? in[z * sz + (size_t)(y - 1) * nx + x] : 0.f;
        if (threadIdx.y == P - 1) plane[P + 1][lx] = (y + 1 < ny && x < nx) ? in[z * sz + (size_t)(y + 1) * nx + x] : 0.f;
        __syncthreads();
        if (inside) {
            float r = cur;
            if (interior(x, y, z, nx, ny, nz))
                r = C0 * cur + C1 * (plane[ly][lx - 1] + plane[ly][lx + 1] + plane[ly - 1][lx] + plane[ly + 1][lx] +
                                     below + above);
            out[z * sz + (size_t)y * nx + x] = r;
        }
        __syncthreads();
        below = cur;
        cur = above;
    }
}

int main() {
    const int nx = 40, ny = 36, nz = 28, steps = 2;
    const size_t n = (size_t)nx * ny * nz;
    std::vector<float> u(n);
    for (auto& v : u) v = (float)(lcg_next() >> 8) * (1.0f / 16777216.0f) * 4.0f - 2.0f;

    // CPU reference in double
    std::vector<double> a(u.begin(), u.end()), b(n);
    for (int s = 0; s < steps; ++s) {
        for (int z = 0; z < nz; ++z)
            for (int y = 0; y < ny; ++y)
                for (int x = 0; x < nx; ++x) {
                    size_t i = ((size_t)z * ny + y) * nx + x;
                    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) { b[i] = a[i]; continue; }
                    b[i] = (double)C0 * a[i] + (double)C1 * (a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx] +
                                                             a[i - (size_t)nx * ny] + a[i + (size_t)nx * ny]);
                }
        a.swap(b);
    }
    double sum = 0.0;
    for (double v : a) sum += v;
    printf("stencil3d: %dx%dx%d, %d steps, c0=%.2f c1=%.2f, tolerance 1e-5*(1+|ref|)\n", nx, ny, nz, steps, C0, C1);
    printf("stencil3d: sum(ref)=%.4f\n", sum);

    float *d0, *d1;
    CHECK(cudaMalloc(&d0, n * sizeof(float)));
    CHECK(cudaMalloc(&d1, n * sizeof(float)));
    const char* names[2] = {"tile3d", "zmarch"};
    std::vector<float> g(n);
    for (int variant = 0; variant < 2; ++variant) {
        CHECK(cudaMemcpy(d0, u.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d1, 0, n * sizeof(float)));
        float *src = d0, *dst = d1;
        for (int s = 0; s < steps; ++s) {
            if (variant == 0)
                stencil_tile3d<<<dim3((nx + B - 1) / B, (ny + B - 1) / B, (nz + B - 1) / B), dim3(B, B, B)>>>(src, dst, nx, ny, nz);
            else
                stencil_zmarch<<<dim3((nx + P - 1) / P, (ny + P - 1) / P), dim3(P, P)>>>(src, dst, nx, ny, nz);
            CHECK(cudaGetLastError());
            float* t = src; src = dst; dst = t;
        }
        CHECK(cudaMemcpy(g.data(), src, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i) {
            if (std::fabs((double)g[i] - a[i]) > 1e-5 * (1.0 + std::fabs(a[i]))) {
                printf("stencil3d: FAIL (%s: out[%zu]=%.7f, expected %.7f)\n", names[variant], i, g[i], a[i]);
                return 1;
            }
        }
        printf("stencil3d: %s ok\n", names[variant]);
    }
    CHECK(cudaFree(d0));
    CHECK(cudaFree(d1));
    printf("stencil3d: PASS\n");
    return 0;
}
