// nbody: all-pairs gravitational accelerations for 1536 bodies (float4 pos+mass), 256-thread
// blocks staging 256-body tiles in shared memory, softened inverse distance with rsqrtf, then
// two leapfrog steps (kick-drift). Accelerations are checked against a double CPU reference with
// tolerance 1e-4 * sum_j |m_j r_ij / d^3| per component (the scale of the summed terms); the
// positions after two steps with tolerance 1e-4*(1+|ref|).
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
            printf("nbody: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint32_t g_lcg = 1969u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }
static float lcg_float() { return (float)(lcg_next() >> 8) * (1.0f / 8388608.0f) - 1.0f; }

constexpr float EPS2 = 0.01f;
constexpr int BLOCK = 256;

__device__ __forceinline__ float3 body_body(float4 bi, float4 bj, float3 a) {
    float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
    float d2 = r.x * r.x + r.y * r.y + r.z * r.z + EPS2;
    float inv = rsqrtf(d2);
    float s = bj.w * inv * inv * inv;
    a.x += r.x * s;
    a.y += r.y * s;
    a.z += r.z * s;
    return a;
}

__global__ void nbody_accel(const float4* __restrict__ pos, float3* __restrict__ acc, int n) {
    __shared__ float4 sh[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float4 bi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int t = 0; t < n; t += BLOCK) {
        int j = t + threadIdx.x;
        sh[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);  // mass 0 pads
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < BLOCK; ++k) a = body_body(bi, sh[k], a);
        __syncthreads();
    }
    if (i < n) acc[i] = a;
}

__global__ void kick_drift(float4* pos, float3* vel, const float3* __restrict__ acc, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 v = vel[i], a = acc[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    float4 p = pos[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    vel[i] = v;
    pos[i] = p;
}

static void cpu_accel(const std::vector<double>& p, int n, std::vector<double>& a, std::vector<double>& scale) {
    a.assign(3 * n, 0.0);
    scale.assign(3 * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double rx = p[4 * j] - p[4 * i], ry = p[4 * j + 1] - p[4 * i + 1], rz = p[4 * j + 2] - p[4 * i + 2];
            double d2 = rx * rx + ry * ry + rz * rz + (double)EPS2;
            double s = p[4 * j + 3] / (d2 * std::sqrt(d2));
            a[3 * i] += rx * s; a[3 * i + 1] += ry * s; a[3 * i + 2] += rz * s;
            scale[3 * i] += std::fabs(rx * s); scale[3 * i + 1] += std::fabs(ry * s); scale[3 * i + 2] += std::fabs(rz * s);
        }
}

int main() {
    const int n = 1536, steps = 2;
    const float dt = 0.001f;
    std::vector<float4> hp(n);
    std::vector<float3> hv(n);
    for (int i = 0; i < n; ++i) {
        hp[i] = make_float4(lcg_float() * 4.f, lcg_float() * 4.f, lcg_float() * 4.f, 0.5f + 0.5f * (lcg_float() + 1.f));
        hv[i] = make_float3(lcg_float() * 0.1f, lcg_float() * 0.1f, lcg_float() * 0.1f);
    }
    float4* dp;
    float3 *dv, *da;
    CHECK(cudaMalloc(&dp, n * sizeof(float4)));
    CHECK(cudaMalloc(&dv, n * sizeof(float3)));
    CHECK(cudaMalloc(&da, n * sizeof(float3)));
    CHECK(cudaMemcpy(dp, hp.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, hv.data(), n * sizeof(float3), cudaMemcpyHostToDevice));

    // CPU reference state in double
    std::vector<double> p(4 * n), v(3 * n), a, scale;
    for (int i = 0; i < n; ++i) {
        p[4 * i] = hp[i].x; p[4 * i + 1] = hp[i].y; p[4 * i + 2] = hp[i].z; p[4 * i + 3] = hp[i].w;
        v[3 * i] = hv[i].x; v[3 * i + 1] = hv[i].y; v[3 * i + 2] = hv[i].z;
    }
    printf("nbody: n=%d block=%d eps2=%.2f dt=%.3f steps=%d\n", n, BLOCK, EPS2, dt, steps);
    std::vector<float3> ga(n);
    for (int s = 0; s < steps; ++s) {
        nbody_accel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(dp, da, n);
        CHECK(cudaGetLastError());
        cpu_accel(p, n, a, scale);
        if (s == 0) {
            CHECK(cudaMemcpy(ga.data(), da, n * sizeof(float3), cudaMemcpyDeviceToHost));
            double asum = 0.0;
            for (int i = 0; i < n; ++i) {
                const float g3[3] = {ga[i].x, ga[i].y, ga[i].z};
                for (int c = 0; c < 3; ++c) {
                    asum += std::fabs(a[3 * i + c]);
                    if (std::fabs((double)g3[c] - a[3 * i + c]) > 1e-4 * scale[3 * i + c]) {
                        printf("nbody: FAIL (accel[%d].%c=%.7g, expected %.7g)\n", i, "xyz"[c], g3[c], a[3 * i + c]);
                        return 1;
                    }
                }
            }
            printf("nbody: accelerations ok, sum|a|=%.2f (tolerance 1e-4*sum|terms|)\n", asum);
        }
        kick_drift<<<(n + 127) / 128, 128>>>(dp, dv, da, n, dt);
        CHECK(cudaGetLastError());
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c) {
                v[3 * i + c] += a[3 * i + c] * dt;
                p[4 * i + c] += v[3 * i + c] * dt;
            }
    }
    CHECK(cudaMemcpy(hp.data(), dp, n * sizeof(float4), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dp));
    CHECK(cudaFree(dv));
    CHECK(cudaFree(da));
    double cx = 0.0, cy = 0.0, cz = 0.0, mt = 0.0;
    for (int i = 0; i < n; ++i) {
        const double g3[3] = {hp[i].x, hp[i].y, hp[i].z};
        for (int c = 0; c < 3; ++c)
            if (std::fabs(g3[c] - p[4 * i + c]) > 1e-4 * (1.0 + std::fabs(p[4 * i + c]))) {
                printf("nbody: FAIL (pos[%d].%c=%.7g, expected %.7g)\n", i, "xyz"[c], g3[c], p[4 * i + c]);
                return 1;
            }
        cx += p[4 * i] * p[4 * i + 3]; cy += p[4 * i + 1] * p[4 * i + 3]; cz += p[4 * i + 2] * p[4 * i + 3];
        mt += p[4 * i + 3];
    }
    printf("nbody: positions after %d steps ok, centre of mass (%.4f, %.4f, %.4f)\n", steps, cx / mt, cy / mt, cz / mt);
    printf("nbody: PASS\n");
    return 0;
}
