// streams_events: two non-blocking streams, each pipelining chunks of pinned host memory through
// cudaMemcpyAsync H2D -> kernel -> cudaMemcpyAsync D2H; events recorded around each stream's
// work give cudaEventElapsedTime (only checked to be >= 0, never printed); stream 1 waits on an
// event of stream 0 (cudaStreamWaitEvent) before a final kernel that combines both results;
// cudaEventSynchronize, cudaStreamSynchronize, cudaStreamQuery/cudaEventQuery after completion.
// Exact integer compare of all results.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            printf("streams_events: FAIL (%s returned %s)\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static uint32_t g_lcg = 8088u;
static uint32_t lcg_next() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg; }

__global__ void transform(const int* in, int* out, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * mul + add;
}

__global__ void combine(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] - b[n - 1 - i];
}

int main() {
    const int n = 1 << 14;
    const int chunks = 4, chunk = n / chunks;
    int *h_in[2], *h_out[2], *h_comb;
    int *d_in[2], *d_out[2], *d_comb;
    cudaStream_t s[2];
    cudaEvent_t start[2], stop[2];
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaMallocHost(&h_in[k], n * sizeof(int)));
        CHECK(cudaMallocHost(&h_out[k], n * sizeof(int)));
        CHECK(cudaMalloc(&d_in[k], n * sizeof(int)));
        CHECK(cudaMalloc(&d_out[k], n * sizeof(int)));
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&start[k]));
        CHECK(cudaEventCreate(&stop[k]));
        for (int i = 0; i < n; ++i) h_in[k][i] = (int)(lcg_next() % 100000) - 50000;
    }
    CHECK(cudaMallocHost(&h_comb, n * sizeof(int)));
    CHECK(cudaMalloc(&d_comb, n * sizeof(int)));
    const int mul[2] = {3, -7}, add[2] = {11, 5};

    for (int k = 0; k < 2; ++k) {
        CHECK(cudaEventRecord(start[k], s[k]));
        for (int c = 0; c < chunks; ++c) {
            size_t off = (size_t)c * chunk;
            CHECK(cudaMemcpyAsync(d_in[k] + off, h_in[k] + off, chunk * sizeof(int),
                                  cudaMemcpyHostToDevice, s[k]));
            transform<<<(chunk + 255) / 256, 256, 0, s[k]>>>(d_in[k] + off, d_out[k] + off, chunk,
                                                            mul[k], add[k]);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpyAsync(h_out[k] + off, d_out[k] + off, chunk * sizeof(int),
                                  cudaMemcpyDeviceToHost, s[k]));
        }
        CHECK(cudaEventRecord(stop[k], s[k]));
    }
    // stream 1 waits for stream 0's work, then combines both device results
    CHECK(cudaStreamWaitEvent(s[1], stop[0], 0));
    combine<<<(n + 255) / 256, 256, 0, s[1]>>>(d_out[0], d_out[1], d_comb, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_comb, d_comb, n * sizeof(int), cudaMemcpyDeviceToHost, s[1]));

    CHECK(cudaEventSynchronize(stop[0]));
    CHECK(cudaStreamSynchronize(s[1]));
    CHECK(cudaStreamSynchronize(s[0]));
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaStreamQuery(s[k]));
        CHECK(cudaEventQuery(stop[k]));
        float ms = -1.0f;
        CHECK(cudaEventElapsedTime(&ms, start[k], stop[k]));
        if (!(ms >= 0.0f)) {
            printf("streams_events: FAIL (stream %d elapsed time %f ms)\n", k, ms);
            return 1;
        }
    }
    printf("streams_events: n=%d streams=2 chunks=%d\n", n, chunks);
    printf("streams_events: event times non-negative, queries report completion\n");

    long long checksum = 0;
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < n; ++i) {
            int e = h_in[k][i] * mul[k] + add[k];
            if (h_out[k][i] != e) {
                printf("streams_events: FAIL (stream %d element %d: %d, expected %d)\n", k, i,
                       h_out[k][i], e);
                return 1;
            }
        }
    for (int i = 0; i < n; ++i) {
        int e = (h_in[0][i] * mul[0] + add[0]) - (h_in[1][n - 1 - i] * mul[1] + add[1]);
        checksum += (long long)e * (i % 3 + 1);
        if (h_comb[i] != e) {
            printf("streams_events: FAIL (combined element %d: %d, expected %d)\n", i, h_comb[i], e);
            return 1;
        }
    }
    printf("streams_events: combined checksum=%lld\n", checksum);
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaEventDestroy(start[k]));
        CHECK(cudaEventDestroy(stop[k]));
        CHECK(cudaStreamDestroy(s[k]));
        CHECK(cudaFreeHost(h_in[k]));
        CHECK(cudaFreeHost(h_out[k]));
        CHECK(cudaFree(d_in[k]));
        CHECK(cudaFree(d_out[k]));
    }
    CHECK(cudaFreeHost(h_comb));
    CHECK(cudaFree(d_comb));
    printf("streams_events: PASS\n");
    return 0;
}
