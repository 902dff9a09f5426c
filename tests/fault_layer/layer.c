/*
 * VK_LAYER_P3LAB_fake_fault: a test-only Vulkan layer that fakes a lost or hung GPU, so that
 * p3lab's recovery (an `error` row, a new instance and device, the next variants run and
 * checked on it) can be tested on lavapipe in CI. Lavapipe cannot lose a device, and it runs
 * the work inside vkQueueSubmit, so a shader that really hangs blocks the process instead of
 * timing out a fence.
 *
 * Trigger: a shader module whose SPIR-V has an OpConstant with the value 0x7E57FA17 (the
 * "marker"; tests/data/glsl/fault.comp compares against it in its loop, so the optimizer keeps
 * it). A compute pipeline made from such a module is marked, a command buffer that binds a
 * marked pipeline is marked until it is begun or reset again (vkBeginCommandBuffer,
 * vkResetCommandBuffer, vkResetCommandPool), and a vkQueueSubmit / vkQueueSubmit2 with a marked
 * command buffer is a "faulting submission".
 *
 * Environment:
 *   P3LAB_FAULT=lost|hang   what the fault is (default lost)
 *   P3LAB_FAULT_AFTER=N     on each VkDevice, the first N faulting submissions pass through to
 *                           the driver normally; the next one faults (default 0). p3lab submits
 *                           a variant once for its check, then per mode the warm-up batches
 *                           and the timed repetitions.
 *
 * lost: the faulting submission never reaches the driver and returns VK_ERROR_DEVICE_LOST.
 *   From then on that device is lost: vkQueueSubmit(2), vkWaitForFences, vkGetFenceStatus,
 *   vkDeviceWaitIdle, vkQueueWaitIdle and vkGetQueryPoolResults return VK_ERROR_DEVICE_LOST.
 *   Everything else (destroying objects, vkMapMemory, which the spec lets succeed on a lost
 *   device) goes to the driver unchanged.
 * hang: the faulting submission is swallowed and returns VK_SUCCESS; it and every later
 *   submission on that device (queued behind it) never run, and their fences never signal:
 *   vkWaitForFences on one sleeps for the timeout (at most 5 s) and returns VK_TIMEOUT,
 *   vkGetFenceStatus returns VK_NOT_READY. Waiting for the hung device to go idle
 *   (vkDeviceWaitIdle, vkQueueWaitIdle, vkGetQueryPoolResults with WAIT) blocks, as it would on
 *   a real GPU; here it sleeps 20 s, then says so on stderr and aborts, so a test sees the
 *   application wait on a device it should have abandoned.
 *
 * VK_EXT_device_fault: advertised (the extension and deviceFault) where the driver lacks it,
 * and stripped from vkCreateDevice before the driver sees it. vkGetDeviceFaultInfoEXT returns
 * FAULT_DESCRIPTION with no address or vendor records once the layer has faulted the device,
 * and an empty description before.
 *
 * Several instances and devices per process: p3lab leaks a failed device with its instance and
 * makes new ones. Per-instance and per-device state is kept in tables keyed by the dispatch key
 * (the loader's dispatch-table pointer at the start of every dispatchable handle; physical
 * devices share their instance's, queues and command buffers their device's). Only the device
 * a fault happened on is lost or hung; a new device is healthy. Tables of instances and devices
 * are fixed-size (overflow aborts loudly); object records grow. A mutex guards the tables.
 * Built by tests/device_loss.rs with `cc`.
 */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAYER_NAME "VK_LAYER_P3LAB_fake_fault"
#define EXPORT __attribute__((visibility("default")))

#define MARKER 0x7E57FA17u
#define FAULT_DESCRIPTION "p3lab fake_fault layer: simulated fault in the marked shader"
/* The longest a wait on a hung fence sleeps before returning VK_TIMEOUT. */
#define MAX_FENCE_WAIT_NS 5000000000ull
/* How long a wait for a hung device to go idle blocks before the layer aborts the process. */
#define IDLE_WAIT_S 20

#define MAX_INSTANCES 32
#define MAX_DEVICES 32

static void die(const char *what) {
    fprintf(stderr, LAYER_NAME ": %s\n", what);
    abort();
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() pthread_mutex_lock(&lock)
#define UNLOCK() pthread_mutex_unlock(&lock)

static void *key_of(const void *handle) { return *(void *const *)handle; }

/* ---- configuration -------------------------------------------------------------------------- */

enum fault_kind { FAULT_LOST, FAULT_HANG };

static enum fault_kind fault_kind(void) {
    const char *s = getenv("P3LAB_FAULT");
    if (!s || !*s || strcmp(s, "lost") == 0) return FAULT_LOST;
    if (strcmp(s, "hang") == 0) return FAULT_HANG;
    die("P3LAB_FAULT must be `lost` or `hang`");
    return FAULT_LOST;
}

static unsigned long fault_after(void) {
    const char *s = getenv("P3LAB_FAULT_AFTER");
    if (!s || !*s) return 0;
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (*end) die("P3LAB_FAULT_AFTER must be a number");
    return n;
}

/* ---- per-instance and per-device state -------------------------------------------------------- */

struct instance {
    void *key; /* 0: free slot */
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2KHR;
};

enum device_state { HEALTHY, LOST, HUNG };

struct device {
    void *key; /* 0: free slot */
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkCreateShaderModule CreateShaderModule;
    PFN_vkDestroyShaderModule DestroyShaderModule;
    PFN_vkCreateComputePipelines CreateComputePipelines;
    PFN_vkDestroyPipeline DestroyPipeline;
    PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
    PFN_vkFreeCommandBuffers FreeCommandBuffers;
    PFN_vkResetCommandPool ResetCommandPool;
    PFN_vkDestroyCommandPool DestroyCommandPool;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkResetCommandBuffer ResetCommandBuffer;
    PFN_vkCmdBindPipeline CmdBindPipeline;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueSubmit2 QueueSubmit2;
    PFN_vkWaitForFences WaitForFences;
    PFN_vkGetFenceStatus GetFenceStatus;
    PFN_vkDestroyFence DestroyFence;
    PFN_vkDeviceWaitIdle DeviceWaitIdle;
    PFN_vkQueueWaitIdle QueueWaitIdle;
    PFN_vkGetQueryPoolResults GetQueryPoolResults;
    PFN_vkGetDeviceFaultInfoEXT GetDeviceFaultInfoEXT; /* the driver's, where it has the extension */
    enum device_state state;
    unsigned long faulting_seen; /* faulting submissions so far */
};

static struct instance instances[MAX_INSTANCES];
static struct device devices[MAX_DEVICES];

/* The instance of a VkInstance or VkPhysicalDevice; the caller holds the lock. */
static struct instance *find_instance_locked(const void *handle) {
    if (!handle) return NULL;
    void *k = key_of(handle);
    for (int i = 0; i < MAX_INSTANCES; i++)
        if (instances[i].key == k) return &instances[i];
    return NULL;
}

/* As find_instance_locked(); the entry lives until vkDestroyInstance. */
static struct instance *find_instance(const void *handle) {
    LOCK();
    struct instance *in = find_instance_locked(handle);
    UNLOCK();
    return in;
}

/* The device of a VkDevice, VkQueue or VkCommandBuffer. The entry is never freed while the
 * application still uses the device, so the pointer stays valid after the lock is released. */
static struct device *find_device(const void *handle) {
    if (!handle) return NULL;
    void *k = key_of(handle);
    struct device *d = NULL;
    LOCK();
    for (int i = 0; i < MAX_DEVICES && !d; i++)
        if (devices[i].key == k) d = &devices[i];
    UNLOCK();
    return d;
}

static struct device *device_of(const void *handle) {
    struct device *d = find_device(handle);
    if (!d) die("a call on a device the layer does not know");
    return d;
}

/* ---- marked objects ----------------------------------------------------------------------------
 * Records of (device key, handle): marked shader modules and pipelines, every command buffer
 * with its pool (and whether it is marked), fences of swallowed submissions. */

struct rec {
    void *dev;
    uint64_t handle;
    uint64_t pool; /* command buffers: their pool */
    int marked;    /* command buffers: bound a marked pipeline since the last begin/reset */
};

struct recs {
    struct rec *v;
    size_t n, cap;
};

static struct recs modules, pipelines, cmdbufs, hung_fences;

static struct rec *rec_find(struct recs *s, void *dev, uint64_t h) {
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == dev && s->v[i].handle == h) return &s->v[i];
    return NULL;
}

static struct rec *rec_add(struct recs *s, void *dev, uint64_t h) {
    struct rec *r = rec_find(s, dev, h);
    if (r) return r;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) die("out of memory");
    }
    r = &s->v[s->n++];
    memset(r, 0, sizeof *r);
    r->dev = dev;
    r->handle = h;
    return r;
}

static void rec_del(struct recs *s, void *dev, uint64_t h) {
    struct rec *r = rec_find(s, dev, h);
    if (r) *r = s->v[--s->n];
}

/* Every record of a device (dev) or of a command pool of it (dev, pool != 0). */
static void rec_del_all(struct recs *s, void *dev, uint64_t pool) {
    for (size_t i = 0; i < s->n;)
        if (s->v[i].dev == dev && (!pool || s->v[i].pool == pool))
            s->v[i] = s->v[--s->n];
        else
            i++;
}

static int is_marked(struct recs *s, void *dev, uint64_t h) {
    LOCK();
    int m = rec_find(s, dev, h) != NULL;
    UNLOCK();
    return m;
}

#define HANDLE(x) ((uint64_t)(uintptr_t)(x))

/* Does the SPIR-V have `OpConstant %type %id MARKER`? */
static int has_marker(const uint32_t *w, size_t bytes) {
    size_t n = bytes / 4;
    if (!w || n < 5 || w[0] != 0x07230203u) return 0;
    for (size_t i = 5; i < n;) {
        uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
        if (len == 0 || i + len > n) return 0;
        if (op == 43 /* OpConstant */ && len == 4 && w[i + 3] == MARKER) return 1;
        i += len;
    }
    return 0;
}

static const void *find_struct(const void *chain, VkStructureType s) {
    for (const VkBaseInStructure *b = chain; b; b = b->pNext)
        if (b->sType == s) return b;
    return NULL;
}

/* ---- waiting on a hung device ------------------------------------------------------------- */

static void sleep_ns(uint64_t ns) {
    struct timespec t = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
    while (nanosleep(&t, &t) != 0) {
    }
}

static void wait_forever(const char *what) {
    sleep_ns((uint64_t)IDLE_WAIT_S * 1000000000ull);
    fprintf(stderr, LAYER_NAME ": %s on a hung device\n", what);
    abort();
}

/* ---- physical-device commands ------------------------------------------------------------- */

static const VkExtensionProperties FAULT_EXT = {VK_EXT_DEVICE_FAULT_EXTENSION_NAME,
                                                VK_EXT_DEVICE_FAULT_SPEC_VERSION};

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

/* The driver's device extensions (caller frees), or NULL. */
static VkExtensionProperties *driver_extensions(struct instance *in, VkPhysicalDevice pd, uint32_t *n) {
    *n = 0;
    if (in->EnumerateDeviceExtensionProperties(pd, NULL, n, NULL) != VK_SUCCESS) return NULL;
    VkExtensionProperties *all = calloc(*n + 1, sizeof *all);
    if (!all) return NULL;
    if (in->EnumerateDeviceExtensionProperties(pd, NULL, n, all) != VK_SUCCESS) {
        free(all);
        return NULL;
    }
    return all;
}

static int has_ext(const VkExtensionProperties *all, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(all[i].extensionName, name) == 0) return 1;
    return 0;
}

/* The driver below has VK_EXT_device_fault itself. */
static int driver_has_fault(struct instance *in, VkPhysicalDevice pd) {
    uint32_t n;
    VkExtensionProperties *all = driver_extensions(in, pd, &n);
    int have = all && has_ext(all, n, VK_EXT_DEVICE_FAULT_EXTENSION_NAME);
    free(all);
    return have;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(
    VkPhysicalDevice pd, const char *layer, uint32_t *count, VkExtensionProperties *props) {
    struct instance *in = find_instance(pd);
    if (!in) die("vkEnumerateDeviceExtensionProperties on an unknown physical device");
    if (layer && strcmp(layer, LAYER_NAME) == 0) return copy_out(&FAULT_EXT, 1, count, props);
    if (layer) return in->EnumerateDeviceExtensionProperties(pd, layer, count, props);
    uint32_t n;
    VkExtensionProperties *all = driver_extensions(in, pd, &n);
    if (!all) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (!has_ext(all, n, FAULT_EXT.extensionName)) all[n++] = FAULT_EXT;
    VkResult r = copy_out(all, n, count, props);
    free(all);
    return r;
}

/* Unlink every VkPhysicalDeviceFaultFeaturesEXT from a chain (into `saved`, at most 4), so the
 * driver never sees a struct of an extension it lacks; relink() puts them back. */
struct unlinked {
    VkBaseOutStructure *prev[4], *self[4];
    int n;
};

static void unlink_fault(VkBaseOutStructure *head, struct unlinked *u) {
    u->n = 0;
    for (VkBaseOutStructure *prev = head, *b = head->pNext; b;) {
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT && u->n < 4) {
            u->prev[u->n] = prev;
            u->self[u->n++] = b;
            prev->pNext = b->pNext;
            b = b->pNext;
        } else {
            prev = b;
            b = b->pNext;
        }
    }
}

static void relink(struct unlinked *u) {
    for (int i = u->n - 1; i >= 0; i--) u->prev[i]->pNext = u->self[i];
}

static void features2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f, int khr) {
    struct instance *in = find_instance(pd);
    if (!in) die("vkGetPhysicalDeviceFeatures2 on an unknown physical device");
    PFN_vkGetPhysicalDeviceFeatures2 next = khr ? in->GetPhysicalDeviceFeatures2KHR : in->GetPhysicalDeviceFeatures2;
    if (driver_has_fault(in, pd)) {
        next(pd, f);
        return;
    }
    struct unlinked u;
    unlink_fault((VkBaseOutStructure *)f, &u);
    next(pd, f);
    relink(&u);
    for (int i = 0; i < u.n; i++) {
        VkPhysicalDeviceFaultFeaturesEXT *ff = (void *)u.self[i];
        ff->deviceFault = VK_TRUE;
        ff->deviceFaultVendorBinary = VK_FALSE;
    }
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f) {
    features2(pd, f, 0);
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice pd,
                                                                      VkPhysicalDeviceFeatures2 *f) {
    features2(pd, f, 1);
}

/* ---- objects: shader modules, pipelines, command buffers ------------------------------------ */

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateShaderModule(VkDevice d, const VkShaderModuleCreateInfo *ci,
                                                               const VkAllocationCallbacks *a, VkShaderModule *out) {
    struct device *dev = device_of(d);
    VkResult r = dev->CreateShaderModule(d, ci, a, out);
    if (r == VK_SUCCESS && has_marker(ci->pCode, ci->codeSize)) {
        LOCK();
        rec_add(&modules, dev->key, HANDLE(*out));
        UNLOCK();
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyShaderModule(VkDevice d, VkShaderModule m, const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    LOCK();
    rec_del(&modules, dev->key, HANDLE(m));
    UNLOCK();
    dev->DestroyShaderModule(d, m, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateComputePipelines(VkDevice d, VkPipelineCache cache, uint32_t n,
                                                                   const VkComputePipelineCreateInfo *ci,
                                                                   const VkAllocationCallbacks *a, VkPipeline *out) {
    struct device *dev = device_of(d);
    VkResult r = dev->CreateComputePipelines(d, cache, n, ci, a, out);
    for (uint32_t i = 0; i < n; i++) {
        if (out[i] == VK_NULL_HANDLE) continue;
        const VkPipelineShaderStageCreateInfo *st = &ci[i].stage;
        /* A module, or (maintenance5) its create info chained to the stage. */
        const VkShaderModuleCreateInfo *inline_ci =
            find_struct(st->pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        int marked = (st->module != VK_NULL_HANDLE && is_marked(&modules, dev->key, HANDLE(st->module))) ||
                     (inline_ci && has_marker(inline_ci->pCode, inline_ci->codeSize));
        if (marked) {
            LOCK();
            rec_add(&pipelines, dev->key, HANDLE(out[i]));
            UNLOCK();
        }
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyPipeline(VkDevice d, VkPipeline p, const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    LOCK();
    rec_del(&pipelines, dev->key, HANDLE(p));
    UNLOCK();
    dev->DestroyPipeline(d, p, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_AllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo *ai,
                                                                   VkCommandBuffer *out) {
    struct device *dev = device_of(d);
    VkResult r = dev->AllocateCommandBuffers(d, ai, out);
    if (r != VK_SUCCESS) return r;
    LOCK();
    for (uint32_t i = 0; i < ai->commandBufferCount; i++)
        rec_add(&cmdbufs, dev->key, HANDLE(out[i]))->pool = HANDLE(ai->commandPool);
    UNLOCK();
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_FreeCommandBuffers(VkDevice d, VkCommandPool pool, uint32_t n,
                                                           const VkCommandBuffer *cbs) {
    struct device *dev = device_of(d);
    LOCK();
    for (uint32_t i = 0; i < n; i++)
        if (cbs[i]) rec_del(&cmdbufs, dev->key, HANDLE(cbs[i]));
    UNLOCK();
    dev->FreeCommandBuffers(d, pool, n, cbs);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_ResetCommandPool(VkDevice d, VkCommandPool pool,
                                                             VkCommandPoolResetFlags flags) {
    struct device *dev = device_of(d);
    LOCK();
    for (size_t i = 0; i < cmdbufs.n; i++)
        if (cmdbufs.v[i].dev == dev->key && cmdbufs.v[i].pool == HANDLE(pool)) cmdbufs.v[i].marked = 0;
    UNLOCK();
    return dev->ResetCommandPool(d, pool, flags);
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyCommandPool(VkDevice d, VkCommandPool pool,
                                                           const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    if (pool != VK_NULL_HANDLE) {
        LOCK();
        rec_del_all(&cmdbufs, dev->key, HANDLE(pool));
        UNLOCK();
    }
    dev->DestroyCommandPool(d, pool, a);
}

static void set_cmd_marked(struct device *dev, VkCommandBuffer cb, int marked) {
    LOCK();
    struct rec *r = rec_find(&cmdbufs, dev->key, HANDLE(cb));
    if (r) r->marked = marked;
    UNLOCK();
}

static int cmd_marked(struct device *dev, VkCommandBuffer cb) {
    LOCK();
    struct rec *r = rec_find(&cmdbufs, dev->key, HANDLE(cb));
    int m = r && r->marked;
    UNLOCK();
    return m;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *bi) {
    struct device *dev = device_of(cb);
    set_cmd_marked(dev, cb, 0); /* beginning resets the recording */
    return dev->BeginCommandBuffer(cb, bi);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags) {
    struct device *dev = device_of(cb);
    set_cmd_marked(dev, cb, 0);
    return dev->ResetCommandBuffer(cb, flags);
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline p) {
    struct device *dev = device_of(cb);
    if (bp == VK_PIPELINE_BIND_POINT_COMPUTE && is_marked(&pipelines, dev->key, HANDLE(p))) set_cmd_marked(dev, cb, 1);
    dev->CmdBindPipeline(cb, bp, p);
}

/* ---- submissions and waits ---------------------------------------------------------------- */

enum verdict { FORWARD, FAIL_LOST, SWALLOW };

/* Decide a submission's fate; `marked`: it has a marked command buffer. */
static enum verdict submission(struct device *dev, int marked, VkFence fence) {
    LOCK();
    enum verdict v = FORWARD;
    if (dev->state == HEALTHY && marked) {
        unsigned long seen = dev->faulting_seen++, after = fault_after();
        if (seen >= after) {
            dev->state = fault_kind() == FAULT_HANG ? HUNG : LOST;
            fprintf(stderr, LAYER_NAME ": faulting submission %lu on device %p: the device is now %s\n", seen + 1,
                    (void *)dev->device, dev->state == HUNG ? "hung" : "lost");
        }
    }
    if (dev->state == LOST) v = FAIL_LOST;
    if (dev->state == HUNG) {
        /* Queued behind the hung work: it never runs and its fence never signals. */
        v = SWALLOW;
        if (fence != VK_NULL_HANDLE) rec_add(&hung_fences, dev->key, HANDLE(fence));
    }
    UNLOCK();
    return v;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence fence) {
    struct device *dev = device_of(q);
    int marked = 0;
    for (uint32_t i = 0; i < n && !marked; i++)
        for (uint32_t j = 0; j < s[i].commandBufferCount && !marked; j++)
            marked = cmd_marked(dev, s[i].pCommandBuffers[j]);
    switch (submission(dev, marked, fence)) {
    case FAIL_LOST:
        return VK_ERROR_DEVICE_LOST;
    case SWALLOW:
        return VK_SUCCESS;
    case FORWARD:
        break;
    }
    return dev->QueueSubmit(q, n, s, fence);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence fence) {
    struct device *dev = device_of(q);
    if (!dev->QueueSubmit2) die("vkQueueSubmit2 on a device whose driver lacks it");
    int marked = 0;
    for (uint32_t i = 0; i < n && !marked; i++)
        for (uint32_t j = 0; j < s[i].commandBufferInfoCount && !marked; j++)
            marked = cmd_marked(dev, s[i].pCommandBufferInfos[j].commandBuffer);
    switch (submission(dev, marked, fence)) {
    case FAIL_LOST:
        return VK_ERROR_DEVICE_LOST;
    case SWALLOW:
        return VK_SUCCESS;
    case FORWARD:
        break;
    }
    return dev->QueueSubmit2(q, n, s, fence);
}

static enum device_state state_of(struct device *dev) {
    LOCK();
    enum device_state s = dev->state;
    UNLOCK();
    return s;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_WaitForFences(VkDevice d, uint32_t n, const VkFence *fences, VkBool32 all,
                                                          uint64_t timeout) {
    struct device *dev = device_of(d);
    enum device_state st = state_of(dev);
    if (st == LOST) return VK_ERROR_DEVICE_LOST;
    if (st == HUNG) {
        /* Fences of submissions that ran before the hang are signalled: the driver answers. */
        VkFence *live = calloc(n ? n : 1, sizeof *live);
        if (!live) return VK_ERROR_OUT_OF_HOST_MEMORY;
        uint32_t k = 0, hung = 0;
        LOCK();
        for (uint32_t i = 0; i < n; i++) {
            if (rec_find(&hung_fences, dev->key, HANDLE(fences[i])))
                hung++;
            else
                live[k++] = fences[i];
        }
        UNLOCK();
        if (hung && (all || k == 0)) {
            free(live);
            sleep_ns(timeout < MAX_FENCE_WAIT_NS ? timeout : MAX_FENCE_WAIT_NS);
            return VK_TIMEOUT;
        }
        VkResult r = dev->WaitForFences(d, k, live, all, timeout);
        free(live);
        return r;
    }
    return dev->WaitForFences(d, n, fences, all, timeout);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetFenceStatus(VkDevice d, VkFence f) {
    struct device *dev = device_of(d);
    enum device_state st = state_of(dev);
    if (st == LOST) return VK_ERROR_DEVICE_LOST;
    if (st == HUNG && is_marked(&hung_fences, dev->key, HANDLE(f))) return VK_NOT_READY;
    return dev->GetFenceStatus(d, f);
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyFence(VkDevice d, VkFence f, const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    LOCK();
    rec_del(&hung_fences, dev->key, HANDLE(f));
    UNLOCK();
    dev->DestroyFence(d, f, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_DeviceWaitIdle(VkDevice d) {
    struct device *dev = device_of(d);
    enum device_state st = state_of(dev);
    if (st == LOST) return VK_ERROR_DEVICE_LOST;
    if (st == HUNG) wait_forever("waited for idle");
    return dev->DeviceWaitIdle(d);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueWaitIdle(VkQueue q) {
    struct device *dev = device_of(q);
    enum device_state st = state_of(dev);
    if (st == LOST) return VK_ERROR_DEVICE_LOST;
    if (st == HUNG) wait_forever("waited for idle");
    return dev->QueueWaitIdle(q);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetQueryPoolResults(VkDevice d, VkQueryPool p, uint32_t first,
                                                                uint32_t count, size_t size, void *data,
                                                                VkDeviceSize stride, VkQueryResultFlags flags) {
    struct device *dev = device_of(d);
    enum device_state st = state_of(dev);
    if (st == LOST) return VK_ERROR_DEVICE_LOST;
    if (st == HUNG && (flags & VK_QUERY_RESULT_WAIT_BIT)) wait_forever("waited for query results");
    return dev->GetQueryPoolResults(d, p, first, count, size, data, stride, flags);
}

/* ---- VK_EXT_device_fault ------------------------------------------------------------------ */

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetDeviceFaultInfoEXT(VkDevice d, VkDeviceFaultCountsEXT *counts,
                                                                  VkDeviceFaultInfoEXT *info) {
    struct device *dev = device_of(d);
    enum device_state st = state_of(dev);
    if (st == HEALTHY && dev->GetDeviceFaultInfoEXT) return dev->GetDeviceFaultInfoEXT(d, counts, info);
    /* No address records, no vendor records, no vendor binary: only the description. */
    counts->addressInfoCount = 0;
    counts->vendorInfoCount = 0;
    counts->vendorBinarySize = 0;
    if (info) snprintf(info->description, VK_MAX_DESCRIPTION_SIZE, "%s", st == HEALTHY ? "" : FAULT_DESCRIPTION);
    return VK_SUCCESS;
}

/* ---- device ------------------------------------------------------------------------------- */

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice d, const VkAllocationCallbacks *a) {
    if (!d) return;
    struct device *dev = device_of(d);
    PFN_vkDestroyDevice destroy = dev->DestroyDevice;
    LOCK();
    rec_del_all(&modules, dev->key, 0);
    rec_del_all(&pipelines, dev->key, 0);
    rec_del_all(&cmdbufs, dev->key, 0);
    rec_del_all(&hung_fences, dev->key, 0);
    memset(dev, 0, sizeof *dev);
    UNLOCK();
    destroy(d, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *out) {
    struct instance *in = find_instance(pd);
    if (!in) die("vkCreateDevice on an unknown physical device");
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(in->instance, "vkCreateDevice");
    if (!create) return VK_ERROR_INITIALIZATION_FAILED;

    int native = driver_has_fault(in, pd);
    VkDeviceCreateInfo c = *ci;
    const char **exts = calloc(ci->enabledExtensionCount + 1, sizeof *exts);
    if (!exts) return VK_ERROR_OUT_OF_HOST_MEMORY;
    c.enabledExtensionCount = 0;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
        if (native || strcmp(ci->ppEnabledExtensionNames[i], VK_EXT_DEVICE_FAULT_EXTENSION_NAME) != 0)
            exts[c.enabledExtensionCount++] = ci->ppEnabledExtensionNames[i];
    c.ppEnabledExtensionNames = exts;
    /* Without the driver's extension its feature struct is ours: unlinked for the call. */
    struct unlinked u = {.n = 0};
    if (!native) unlink_fault((VkBaseOutStructure *)&c, &u);
    VkResult r = create(pd, &c, a, out);
    relink(&u); /* the application's chain as it was (a struct first in it hung off our copy) */
    free(exts);
    if (r != VK_SUCCESS) return r;

    LOCK();
    struct device *dev = NULL;
    for (int i = 0; i < MAX_DEVICES && !dev; i++)
        if (!devices[i].key) dev = &devices[i];
    if (!dev) {
        UNLOCK();
        die("too many devices");
    }
    memset(dev, 0, sizeof *dev);
    dev->key = key_of(*out);
    dev->device = *out;
    dev->gdpa = gdpa;
#define DEV(name) dev->name = (PFN_vk##name)gdpa(*out, "vk" #name)
    DEV(DestroyDevice);
    DEV(CreateShaderModule);
    DEV(DestroyShaderModule);
    DEV(CreateComputePipelines);
    DEV(DestroyPipeline);
    DEV(AllocateCommandBuffers);
    DEV(FreeCommandBuffers);
    DEV(ResetCommandPool);
    DEV(DestroyCommandPool);
    DEV(BeginCommandBuffer);
    DEV(ResetCommandBuffer);
    DEV(CmdBindPipeline);
    DEV(QueueSubmit);
    DEV(QueueSubmit2);
    DEV(WaitForFences);
    DEV(GetFenceStatus);
    DEV(DestroyFence);
    DEV(DeviceWaitIdle);
    DEV(QueueWaitIdle);
    DEV(GetQueryPoolResults);
#undef DEV
    if (!dev->QueueSubmit2) dev->QueueSubmit2 = (PFN_vkQueueSubmit2)gdpa(*out, "vkQueueSubmit2KHR");
    if (native) dev->GetDeviceFaultInfoEXT = (PFN_vkGetDeviceFaultInfoEXT)gdpa(*out, "vkGetDeviceFaultInfoEXT");
    UNLOCK();
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
    LOCK();
    struct instance *in = NULL;
    for (int i = 0; i < MAX_INSTANCES && !in; i++)
        if (!instances[i].key) in = &instances[i];
    if (!in) {
        UNLOCK();
        die("too many instances");
    }
    memset(in, 0, sizeof *in);
    in->key = key_of(*out);
    in->instance = *out;
    in->gipa = gipa;
#define INST(name) in->name = (PFN_vk##name)gipa(*out, "vk" #name)
    INST(DestroyInstance);
    INST(EnumerateDeviceExtensionProperties);
    INST(GetPhysicalDeviceFeatures2);
#undef INST
    in->GetPhysicalDeviceFeatures2KHR = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
    UNLOCK();
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance i, const VkAllocationCallbacks *a) {
    if (!i) return;
    LOCK();
    struct instance *in = find_instance_locked(i);
    PFN_vkDestroyInstance destroy = in ? in->DestroyInstance : NULL;
    if (in) memset(in, 0, sizeof *in);
    UNLOCK();
    if (!destroy) die("vkDestroyInstance of an unknown instance");
    destroy(i, a);
}

/* ---- proc-addr plumbing ------------------------------------------------------------------- */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice d, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance i, const char *name);

#define HOOK(fn) \
    if (strcmp(name, "vk" #fn) == 0) return (PFN_vkVoidFunction)layer_##fn;

static PFN_vkVoidFunction device_hook(const char *name) {
    HOOK(GetDeviceProcAddr);
    HOOK(DestroyDevice);
    HOOK(CreateShaderModule);
    HOOK(DestroyShaderModule);
    HOOK(CreateComputePipelines);
    HOOK(DestroyPipeline);
    HOOK(AllocateCommandBuffers);
    HOOK(FreeCommandBuffers);
    HOOK(ResetCommandPool);
    HOOK(DestroyCommandPool);
    HOOK(BeginCommandBuffer);
    HOOK(ResetCommandBuffer);
    HOOK(CmdBindPipeline);
    HOOK(QueueSubmit);
    HOOK(WaitForFences);
    HOOK(GetFenceStatus);
    HOOK(DestroyFence);
    HOOK(DeviceWaitIdle);
    HOOK(QueueWaitIdle);
    HOOK(GetQueryPoolResults);
    HOOK(GetDeviceFaultInfoEXT);
    if (strcmp(name, "vkQueueSubmit2") == 0 || strcmp(name, "vkQueueSubmit2KHR") == 0)
        return (PFN_vkVoidFunction)layer_QueueSubmit2;
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice d, const char *name) {
    struct device *dev = find_device(d);
    if (!dev) return NULL;
    /* Never hand out a hook that would call a function the driver lacks. */
    if ((strcmp(name, "vkQueueSubmit2") == 0 || strcmp(name, "vkQueueSubmit2KHR") == 0) && !dev->gdpa(d, name))
        return NULL;
    PFN_vkVoidFunction f = device_hook(name);
    if (f) return f;
    return dev->gdpa(d, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance i, const char *name) {
    HOOK(GetInstanceProcAddr);
    HOOK(CreateInstance);
    HOOK(DestroyInstance);
    HOOK(CreateDevice);
    HOOK(EnumerateDeviceExtensionProperties);
    LOCK();
    struct instance *in = find_instance_locked(i);
    PFN_vkGetInstanceProcAddr next = in ? in->gipa : NULL;
    int f2 = in && in->GetPhysicalDeviceFeatures2, f2khr = in && in->GetPhysicalDeviceFeatures2KHR;
    UNLOCK();
    if (strcmp(name, "vkGetPhysicalDeviceFeatures2") == 0)
        return f2 ? (PFN_vkVoidFunction)layer_GetPhysicalDeviceFeatures2 : NULL;
    if (strcmp(name, "vkGetPhysicalDeviceFeatures2KHR") == 0)
        return f2khr ? (PFN_vkVoidFunction)layer_GetPhysicalDeviceFeatures2KHR : NULL;
    PFN_vkVoidFunction f = device_hook(name);
    if (f) return f;
    return next ? next(i, name) : NULL;
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
