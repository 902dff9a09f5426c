/*
 * VK_LAYER_P3LAB_fake_perf: a test-only Vulkan layer that advertises VK_KHR_performance_query
 * over a device that lacks it (lavapipe in CI), with three counters whose true values the
 * tests know:
 *
 *   0 "invocations"  compute-shader invocations between begin and end, from a hidden
 *                    PIPELINE_STATISTICS query the layer wraps around the performance query
 *                    (uint64, pass 0)
 *   1 "dispatches"   vkCmdDispatch calls recorded between begin and end (uint64, pass 1)
 *   2 "constant"     always 12.5 (float64, pass 1)
 *
 * Counters 0 and 1..2 live in different passes, so capturing all three needs two passes and
 * exercises the replay with VkPerformanceQuerySubmitInfoKHR. The layer also enforces the
 * profiling lock: a submission that uses a performance query without the lock fails.
 *
 * P3LAB_FAKE_PERF_RENAME="constant=VALU Busy" lists a counter under another name (a driver's).
 *
 * Single instance, single device, single thread: enough for one p3lab process. Tables are
 * fixed-size; overflowing one aborts loudly. Built by tests/counters.rs with `cc`.
 */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAYER_NAME "VK_LAYER_P3LAB_fake_perf"
#define EXPORT __attribute__((visibility("default")))

enum { N_COUNTERS = 3, N_PASSES = 2 };
enum { C_INVOCATIONS = 0, C_DISPATCHES = 1, C_CONSTANT = 2 };
#define CONSTANT_VALUE 12.5

static const struct {
    const char *name, *category, *description;
    VkPerformanceCounterUnitKHR unit;
    VkPerformanceCounterStorageKHR storage;
    uint32_t pass;
} COUNTERS[N_COUNTERS] = {
    {"invocations", "compute", "Compute shader invocations (a pipeline statistics query the layer wraps)",
     VK_PERFORMANCE_COUNTER_UNIT_GENERIC_KHR, VK_PERFORMANCE_COUNTER_STORAGE_UINT64_KHR, 0},
    {"dispatches", "commands", "vkCmdDispatch calls between begin and end",
     VK_PERFORMANCE_COUNTER_UNIT_GENERIC_KHR, VK_PERFORMANCE_COUNTER_STORAGE_UINT64_KHR, 1},
    {"constant", "test", "Always 12.5: checks float64 decoding",
     VK_PERFORMANCE_COUNTER_UNIT_PERCENTAGE_KHR, VK_PERFORMANCE_COUNTER_STORAGE_FLOAT64_KHR, 1},
};

/* P3LAB_FAKE_PERF_RENAME="old=new": counter `old` is listed as `new` (a driver's name, so the
 * tests can exercise p3lab's per-driver tables of counter names). */
static const char *counter_name(int i) {
    static char renamed[VK_MAX_DESCRIPTION_SIZE];
    const char *r = getenv("P3LAB_FAKE_PERF_RENAME");
    const char *eq = r ? strchr(r, '=') : NULL;
    if (eq && (size_t)(eq - r) == strlen(COUNTERS[i].name) &&
        strncmp(r, COUNTERS[i].name, (size_t)(eq - r)) == 0) {
        snprintf(renamed, sizeof renamed, "%s", eq + 1);
        return renamed;
    }
    return COUNTERS[i].name;
}

static void die(const char *what) {
    fprintf(stderr, LAYER_NAME ": %s\n", what);
    abort();
}

/* ---- dispatch tables ---------------------------------------------------------------------- */

static struct {
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2KHR;
} inst;

static struct {
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkCreateQueryPool CreateQueryPool;
    PFN_vkDestroyQueryPool DestroyQueryPool;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkCmdBeginQuery CmdBeginQuery;
    PFN_vkCmdEndQuery CmdEndQuery;
    PFN_vkCmdDispatch CmdDispatch;
    PFN_vkCmdResetQueryPool CmdResetQueryPool;
    PFN_vkResetQueryPool ResetQueryPool;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueSubmit2 QueueSubmit2;
    PFN_vkGetQueryPoolResults GetQueryPoolResults;
    int perf_enabled; /* the app enabled the extension and performanceCounterQueryPools */
    int lock_held;
} dev;

/* ---- performance query pools and command-buffer records ----------------------------------- */

#define MAX_POOLS 16
#define MAX_QUERIES 64
#define SLOTS 256 /* hidden statistics queries per pool, used round-robin */
#define MAX_CMDS 64
#define MAX_OPS 32

/* A counter's group is COUNTERS[].pass; a pool's pass index i is the i-th group its counters
 * use, so a pool whose counters all share one group takes a single pass with index 0. */
struct perf_query {
    uint32_t groups_done; /* bit g: the pass of group g was submitted since the last reset */
    uint64_t dispatches[N_PASSES]; /* per group */
    uint32_t slot[N_PASSES];       /* per group */
};

struct perf_pool {
    int used;
    VkQueryPool pool; /* the hidden PIPELINE_STATISTICS pool; its handle is the app's */
    uint32_t count, n_idx, idx[N_COUNTERS], next_slot;
    struct perf_query q[MAX_QUERIES];
};

enum { OP_END, OP_RESET };
struct op {
    int kind;
    struct perf_pool *pool;
    uint32_t first, count, slot;
    uint64_t dispatches;
};

struct cmd {
    int used;
    VkCommandBuffer cb;
    int active; /* inside a performance query */
    struct perf_pool *pool;
    uint32_t query, slot;
    uint64_t dispatches;
    uint32_t n_ops;
    struct op ops[MAX_OPS];
};

static struct perf_pool pools[MAX_POOLS];
static struct cmd cmds[MAX_CMDS];

static struct perf_pool *find_pool(VkQueryPool p) {
    for (int i = 0; i < MAX_POOLS; i++)
        if (pools[i].used && pools[i].pool == p) return &pools[i];
    return NULL;
}

static struct cmd *find_cmd(VkCommandBuffer cb, int create) {
    for (int i = 0; i < MAX_CMDS; i++)
        if (cmds[i].used && cmds[i].cb == cb) return &cmds[i];
    if (!create) return NULL;
    for (int i = 0; i < MAX_CMDS; i++)
        if (!cmds[i].used) {
            memset(&cmds[i], 0, sizeof cmds[i]);
            cmds[i].used = 1;
            cmds[i].cb = cb;
            return &cmds[i];
        }
    die("too many command buffers with performance queries");
    return NULL;
}

static void push_op(struct cmd *c, struct op o) {
    if (c->n_ops == MAX_OPS) die("too many performance-query operations in one command buffer");
    c->ops[c->n_ops++] = o;
}

static const void *find_struct(const void *chain, VkStructureType s) {
    for (const VkBaseInStructure *b = chain; b; b = b->pNext)
        if (b->sType == s) return b;
    return NULL;
}

/* ---- physical-device commands ------------------------------------------------------------- */

static const VkExtensionProperties PERF_EXT = {VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME,
                                               VK_KHR_PERFORMANCE_QUERY_SPEC_VERSION};

static VkResult copy_out(const VkExtensionProperties *all, uint32_t n, uint32_t *count,
                         VkExtensionProperties *props) {
    if (!props) {
        *count = n;
        return VK_SUCCESS;
    }
    uint32_t k = *count < n ? *count : n;
    memcpy(props, all, k * sizeof *all);
    *count = k;
    return k < n ? VK_INCOMPLETE : VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(
    VkPhysicalDevice pd, const char *layer, uint32_t *count, VkExtensionProperties *props) {
    if (layer && strcmp(layer, LAYER_NAME) == 0) return copy_out(&PERF_EXT, 1, count, props);
    if (layer) return inst.EnumerateDeviceExtensionProperties(pd, layer, count, props);
    uint32_t n = 0;
    VkResult r = inst.EnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    if (r != VK_SUCCESS) return r;
    VkExtensionProperties *all = calloc(n + 1, sizeof *all);
    if (!all) return VK_ERROR_OUT_OF_HOST_MEMORY;
    r = inst.EnumerateDeviceExtensionProperties(pd, NULL, &n, all);
    if (r != VK_SUCCESS) {
        free(all);
        return r;
    }
    int have = 0;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(all[i].extensionName, PERF_EXT.extensionName) == 0) have = 1;
    if (!have) all[n++] = PERF_EXT; /* the loader may already add it from our manifest */
    r = copy_out(all, n, count, props);
    free(all);
    return r;
}

static void set_perf_feature(VkPhysicalDeviceFeatures2 *f) {
    for (VkBaseOutStructure *b = (VkBaseOutStructure *)f; b; b = b->pNext)
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR) {
            VkPhysicalDevicePerformanceQueryFeaturesKHR *p = (void *)b;
            p->performanceCounterQueryPools = VK_TRUE;
            p->performanceCounterMultipleQueryPools = VK_FALSE;
        }
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd,
                                                                   VkPhysicalDeviceFeatures2 *f) {
    inst.GetPhysicalDeviceFeatures2(pd, f);
    set_perf_feature(f);
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice pd,
                                                                      VkPhysicalDeviceFeatures2 *f) {
    inst.GetPhysicalDeviceFeatures2KHR(pd, f);
    set_perf_feature(f);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR(
    VkPhysicalDevice pd, uint32_t family, uint32_t *count, VkPerformanceCounterKHR *counters,
    VkPerformanceCounterDescriptionKHR *descs) {
    (void)pd;
    (void)family;
    if (!counters && !descs) {
        *count = N_COUNTERS;
        return VK_SUCCESS;
    }
    uint32_t n = *count < N_COUNTERS ? *count : N_COUNTERS;
    for (uint32_t i = 0; i < n; i++) {
        if (counters) {
            counters[i].unit = COUNTERS[i].unit;
            counters[i].scope = VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_KHR;
            counters[i].storage = COUNTERS[i].storage;
            memset(counters[i].uuid, 0, VK_UUID_SIZE);
            memcpy(counters[i].uuid, "p3lab-fake-", 11);
            counters[i].uuid[15] = (uint8_t)i;
        }
        if (descs) {
            descs[i].flags = 0;
            snprintf(descs[i].name, VK_MAX_DESCRIPTION_SIZE, "%s", counter_name(i));
            snprintf(descs[i].category, VK_MAX_DESCRIPTION_SIZE, "%s", COUNTERS[i].category);
            snprintf(descs[i].description, VK_MAX_DESCRIPTION_SIZE, "%s", COUNTERS[i].description);
        }
    }
    *count = n;
    return n < N_COUNTERS ? VK_INCOMPLETE : VK_SUCCESS;
}

static uint32_t passes_mask(uint32_t n, const uint32_t *idx) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (idx[i] < N_COUNTERS) m |= 1u << COUNTERS[idx[i]].pass;
    return m;
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR(
    VkPhysicalDevice pd, const VkQueryPoolPerformanceCreateInfoKHR *info, uint32_t *passes) {
    (void)pd;
    *passes = (uint32_t)__builtin_popcount(passes_mask(info->counterIndexCount, info->pCounterIndices));
}

/* ---- device commands ---------------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL layer_AcquireProfilingLockKHR(VkDevice d,
                                                                    const VkAcquireProfilingLockInfoKHR *i) {
    (void)d;
    (void)i;
    if (!dev.perf_enabled) die("vkAcquireProfilingLockKHR without the extension and feature enabled");
    dev.lock_held = 1;
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_ReleaseProfilingLockKHR(VkDevice d) {
    (void)d;
    dev.lock_held = 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateQueryPool(VkDevice d, const VkQueryPoolCreateInfo *ci,
                                                            const VkAllocationCallbacks *a, VkQueryPool *out) {
    if (ci->queryType != VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR) return dev.CreateQueryPool(d, ci, a, out);
    if (!dev.perf_enabled) die("a performance query pool without performanceCounterQueryPools enabled");
    const VkQueryPoolPerformanceCreateInfoKHR *p =
        find_struct(ci->pNext, VK_STRUCTURE_TYPE_QUERY_POOL_PERFORMANCE_CREATE_INFO_KHR);
    if (!p || p->counterIndexCount == 0 || p->counterIndexCount > N_COUNTERS || ci->queryCount > MAX_QUERIES)
        return VK_ERROR_INITIALIZATION_FAILED;
    for (uint32_t i = 0; i < p->counterIndexCount; i++)
        if (p->pCounterIndices[i] >= N_COUNTERS) return VK_ERROR_INITIALIZATION_FAILED;
    struct perf_pool *pp = NULL;
    for (int i = 0; i < MAX_POOLS && !pp; i++)
        if (!pools[i].used) pp = &pools[i];
    if (!pp) die("too many performance query pools");
    VkQueryPoolCreateInfo h = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS,
        .queryCount = SLOTS,
        .pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT,
    };
    VkResult r = dev.CreateQueryPool(d, &h, a, out);
    if (r != VK_SUCCESS) return r;
    memset(pp, 0, sizeof *pp);
    pp->used = 1;
    pp->pool = *out;
    pp->count = ci->queryCount;
    pp->n_idx = p->counterIndexCount;
    memcpy(pp->idx, p->pCounterIndices, p->counterIndexCount * sizeof(uint32_t));
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyQueryPool(VkDevice d, VkQueryPool p, const VkAllocationCallbacks *a) {
    struct perf_pool *pp = find_pool(p);
    if (pp) pp->used = 0;
    dev.DestroyQueryPool(d, p, a);
}

static void reset_queries(struct perf_pool *pp, uint32_t first, uint32_t count) {
    for (uint32_t i = first; i < first + count && i < pp->count; i++) memset(&pp->q[i], 0, sizeof pp->q[i]);
}

static VKAPI_ATTR void VKAPI_CALL layer_ResetQueryPool(VkDevice d, VkQueryPool p, uint32_t first, uint32_t count) {
    struct perf_pool *pp = find_pool(p);
    if (pp)
        reset_queries(pp, first, count); /* hidden slots are reset when a query begins */
    else
        dev.ResetQueryPool(d, p, first, count);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *i) {
    struct cmd *c = find_cmd(cb, 0);
    if (c) c->used = 0; /* a new recording forgets the old one */
    return dev.BeginCommandBuffer(cb, i);
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdResetQueryPool(VkCommandBuffer cb, VkQueryPool p, uint32_t first,
                                                          uint32_t count) {
    struct perf_pool *pp = find_pool(p);
    if (!pp) {
        dev.CmdResetQueryPool(cb, p, first, count);
        return;
    }
    push_op(find_cmd(cb, 1), (struct op){.kind = OP_RESET, .pool = pp, .first = first, .count = count});
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdBeginQuery(VkCommandBuffer cb, VkQueryPool p, uint32_t query,
                                                      VkQueryControlFlags flags) {
    struct perf_pool *pp = find_pool(p);
    if (!pp) {
        dev.CmdBeginQuery(cb, p, query, flags);
        return;
    }
    if (query >= pp->count) die("vkCmdBeginQuery: query index out of range");
    if (!dev.lock_held) die("vkCmdBeginQuery on a performance query without the profiling lock");
    struct cmd *c = find_cmd(cb, 1);
    if (c->active) die("vkCmdBeginQuery: a performance query is already active");
    c->active = 1;
    c->pool = pp;
    c->query = query;
    c->slot = pp->next_slot++ % SLOTS;
    c->dispatches = 0;
    dev.CmdResetQueryPool(cb, p, c->slot, 1);
    dev.CmdBeginQuery(cb, p, c->slot, 0);
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
    struct cmd *c = find_cmd(cb, 0);
    if (c && c->active) c->dispatches++;
    dev.CmdDispatch(cb, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdEndQuery(VkCommandBuffer cb, VkQueryPool p, uint32_t query) {
    struct perf_pool *pp = find_pool(p);
    if (!pp) {
        dev.CmdEndQuery(cb, p, query);
        return;
    }
    struct cmd *c = find_cmd(cb, 0);
    if (!c || !c->active || c->pool != pp || c->query != query) die("vkCmdEndQuery without a matching begin");
    dev.CmdEndQuery(cb, p, c->slot);
    c->active = 0;
    push_op(c, (struct op){.kind = OP_END, .pool = pp, .first = query, .slot = c->slot, .dispatches = c->dispatches});
}

/* What a submitted command buffer did to performance queries, in pass `pass`. 0 or an error. */
static VkResult apply(VkCommandBuffer cb, uint32_t pass) {
    struct cmd *c = find_cmd(cb, 0);
    if (!c) return VK_SUCCESS;
    for (uint32_t i = 0; i < c->n_ops; i++) {
        struct op *o = &c->ops[i];
        if (o->kind == OP_RESET) {
            reset_queries(o->pool, o->first, o->count);
            continue;
        }
        if (!dev.lock_held) {
            fprintf(stderr, LAYER_NAME ": submission of a performance query without the profiling lock\n");
            return VK_ERROR_UNKNOWN;
        }
        uint32_t mask = passes_mask(o->pool->n_idx, o->pool->idx), group = 0, seen = 0;
        for (; group < N_PASSES; group++)
            if ((mask >> group) & 1 && seen++ == pass) break;
        if (group == N_PASSES) {
            fprintf(stderr, LAYER_NAME ": counterPassIndex %u is out of range\n", pass);
            return VK_ERROR_UNKNOWN;
        }
        struct perf_query *q = &o->pool->q[o->first];
        q->groups_done |= 1u << group;
        q->dispatches[group] = o->dispatches;
        q->slot[group] = o->slot;
    }
    return VK_SUCCESS;
}

static uint32_t pass_of(const void *chain) {
    const VkPerformanceQuerySubmitInfoKHR *p = find_struct(chain, VK_STRUCTURE_TYPE_PERFORMANCE_QUERY_SUBMIT_INFO_KHR);
    return p ? p->counterPassIndex : 0;
}

/* The state is updated at submission: callers wait for the fence before reading results. The
 * VkPerformanceQuerySubmitInfoKHR stays in the chain; Mesa's common submit code reads and
 * ignores it. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *s, VkFence f) {
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < s[i].commandBufferCount; j++) {
            VkResult r = apply(s[i].pCommandBuffers[j], pass_of(s[i].pNext));
            if (r != VK_SUCCESS) return r;
        }
    return dev.QueueSubmit(queue, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *s, VkFence f) {
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < s[i].commandBufferInfoCount; j++) {
            VkResult r = apply(s[i].pCommandBufferInfos[j].commandBuffer, pass_of(s[i].pNext));
            if (r != VK_SUCCESS) return r;
        }
    return dev.QueueSubmit2(queue, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetQueryPoolResults(VkDevice d, VkQueryPool p, uint32_t first,
                                                                uint32_t count, size_t size, void *data,
                                                                VkDeviceSize stride, VkQueryResultFlags flags) {
    struct perf_pool *pp = find_pool(p);
    if (!pp) return dev.GetQueryPoolResults(d, p, first, count, size, data, stride, flags);
    if (first + count > pp->count || stride < pp->n_idx * sizeof(VkPerformanceCounterResultKHR) ||
        (count > 0 && size < (count - 1) * stride + pp->n_idx * sizeof(VkPerformanceCounterResultKHR)))
        die("vkGetQueryPoolResults: bad range, stride or size for a performance query pool");
    uint32_t need = passes_mask(pp->n_idx, pp->idx);
    for (uint32_t i = 0; i < count; i++) {
        struct perf_query *q = &pp->q[first + i];
        if ((q->groups_done & need) != need) return VK_NOT_READY;
        VkPerformanceCounterResultKHR *out = (void *)((char *)data + i * stride);
        for (uint32_t k = 0; k < pp->n_idx; k++) {
            uint32_t c = pp->idx[k], group = COUNTERS[c].pass;
            switch (c) {
            case C_INVOCATIONS: {
                uint64_t v = 0;
                VkResult r = dev.GetQueryPoolResults(d, p, q->slot[group], 1, sizeof v, &v, sizeof v,
                                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
                if (r != VK_SUCCESS) return r;
                out[k].uint64 = v;
                break;
            }
            case C_DISPATCHES:
                out[k].uint64 = q->dispatches[group];
                break;
            case C_CONSTANT:
                out[k].float64 = CONSTANT_VALUE;
                break;
            }
        }
    }
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice d, const VkAllocationCallbacks *a) {
    PFN_vkDestroyDevice destroy = dev.DestroyDevice;
    memset(&dev, 0, sizeof dev);
    memset(pools, 0, sizeof pools);
    memset(cmds, 0, sizeof cmds);
    destroy(d, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *out) {
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst.instance, "vkCreateDevice");
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;

    /* The extension and its feature are ours: the device below never sees them. */
    VkDeviceCreateInfo c = *ci;
    const char **exts = calloc(ci->enabledExtensionCount + 1, sizeof *exts);
    if (!exts) return VK_ERROR_OUT_OF_HOST_MEMORY;
    int ext_on = 0;
    c.enabledExtensionCount = 0;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
        if (strcmp(ci->ppEnabledExtensionNames[i], VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME) == 0)
            ext_on = 1;
        else
            exts[c.enabledExtensionCount++] = ci->ppEnabledExtensionNames[i];
    }
    c.ppEnabledExtensionNames = exts;
    /* Unlink the feature struct for the call, then put the application's chain back. */
    VkBaseOutStructure *prev = NULL, *feat = NULL;
    for (VkBaseOutStructure *b = (VkBaseOutStructure *)ci->pNext, *pr = NULL; b; pr = b, b = b->pNext)
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR) {
            prev = pr;
            feat = b;
            break;
        }
    int feat_on = feat && ((VkPhysicalDevicePerformanceQueryFeaturesKHR *)feat)->performanceCounterQueryPools;
    if (feat) {
        if (prev)
            prev->pNext = feat->pNext;
        else
            c.pNext = feat->pNext;
    }
    VkResult r = create(pd, &c, a, out);
    if (feat && prev) prev->pNext = feat;
    free(exts);
    if (r != VK_SUCCESS) return r;

    memset(&dev, 0, sizeof dev);
    dev.device = *out;
    dev.gdpa = gdpa;
    dev.perf_enabled = ext_on && feat_on;
#define DEV(name) dev.name = (PFN_vk##name)gdpa(*out, "vk" #name)
    DEV(DestroyDevice);
    DEV(CreateQueryPool);
    DEV(DestroyQueryPool);
    DEV(BeginCommandBuffer);
    DEV(CmdBeginQuery);
    DEV(CmdEndQuery);
    DEV(CmdDispatch);
    DEV(CmdResetQueryPool);
    DEV(ResetQueryPool);
    DEV(QueueSubmit);
    DEV(QueueSubmit2);
    DEV(GetQueryPoolResults);
#undef DEV
    return VK_SUCCESS;
}

/* ---- instance ----------------------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                           VkInstance *out) {
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = create(ci, a, out);
    if (r != VK_SUCCESS) return r;
    memset(&inst, 0, sizeof inst);
    inst.instance = *out;
    inst.gipa = gipa;
#define INST(name) inst.name = (PFN_vk##name)gipa(*out, "vk" #name)
    INST(DestroyInstance);
    INST(EnumerateDeviceExtensionProperties);
    INST(GetPhysicalDeviceFeatures2);
    inst.GetPhysicalDeviceFeatures2KHR = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
#undef INST
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance i, const VkAllocationCallbacks *a) {
    PFN_vkDestroyInstance destroy = inst.DestroyInstance;
    memset(&inst, 0, sizeof inst);
    destroy(i, a);
}

/* ---- proc-addr plumbing ------------------------------------------------------------------- */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice d, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance i, const char *name);

#define HOOK(fn)                                   \
    if (strcmp(name, "vk" #fn) == 0) return (PFN_vkVoidFunction)layer_##fn;
/* Only when the next layer has it: never hand out a hook that would call NULL. */
#define HOOK_IF(fn, next)                          \
    if (strcmp(name, "vk" #fn) == 0) return next ? (PFN_vkVoidFunction)layer_##fn : NULL;

static PFN_vkVoidFunction device_hook(const char *name) {
    HOOK(GetDeviceProcAddr);
    HOOK(DestroyDevice);
    HOOK(AcquireProfilingLockKHR);
    HOOK(ReleaseProfilingLockKHR);
    HOOK(CreateQueryPool);
    HOOK(DestroyQueryPool);
    HOOK(BeginCommandBuffer);
    HOOK(CmdBeginQuery);
    HOOK(CmdEndQuery);
    HOOK(CmdDispatch);
    HOOK(CmdResetQueryPool);
    HOOK(ResetQueryPool);
    HOOK(QueueSubmit);
    HOOK(GetQueryPoolResults);
    if (strcmp(name, "vkQueueSubmit2") == 0 || strcmp(name, "vkQueueSubmit2KHR") == 0)
        return dev.QueueSubmit2 ? (PFN_vkVoidFunction)layer_QueueSubmit2 : NULL;
    if (strcmp(name, "vkResetQueryPoolEXT") == 0)
        return dev.ResetQueryPool ? (PFN_vkVoidFunction)layer_ResetQueryPool : NULL;
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice d, const char *name) {
    PFN_vkVoidFunction f = device_hook(name);
    if (f) return f;
    return dev.gdpa ? dev.gdpa(d, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance i, const char *name) {
    HOOK(GetInstanceProcAddr);
    HOOK(CreateInstance);
    HOOK(DestroyInstance);
    HOOK(CreateDevice);
    HOOK(EnumerateDeviceExtensionProperties);
    HOOK(EnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR);
    HOOK(GetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR);
    HOOK_IF(GetPhysicalDeviceFeatures2, inst.GetPhysicalDeviceFeatures2);
    HOOK_IF(GetPhysicalDeviceFeatures2KHR, inst.GetPhysicalDeviceFeatures2KHR);
    if (dev.device) {
        PFN_vkVoidFunction f = device_hook(name);
        if (f) return f;
    }
    return inst.gipa ? inst.gipa(i, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
    if (v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
        return VK_ERROR_INITIALIZATION_FAILED;
    v->loaderLayerInterfaceVersion = 2;
    v->pfnGetInstanceProcAddr = layer_GetInstanceProcAddr;
    v->pfnGetDeviceProcAddr = layer_GetDeviceProcAddr;
    v->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
