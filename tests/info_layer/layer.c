/*
 * VK_LAYER_P3LAB_fake_shader_info: a test-only Vulkan layer that advertises VK_AMD_shader_info
 * over a device that lacks it (lavapipe in CI) and answers vkGetShaderInfoAMD with values the
 * tests know, so that p3lab's shader-info path runs without an AMD GPU.
 *
 * vkGetShaderInfoAMD(device, pipeline, stage, type, pInfoSize, pInfo), for a compute pipeline
 * of the device (anything else: VK_ERROR_FEATURE_NOT_PRESENT, as for a stage the pipeline
 * lacks):
 *   stage other than VK_SHADER_STAGE_COMPUTE_BIT       VK_ERROR_FEATURE_NOT_PRESENT
 *   VK_SHADER_INFO_TYPE_STATISTICS_AMD                 a VkShaderStatisticsInfoAMD:
 *       shaderStageMask COMPUTE; numUsedVgprs 40, numUsedSgprs 24,
 *       ldsSizePerLocalWorkGroup 65536, ldsUsageSizeInBytes 1024, scratchMemUsageInBytes 16;
 *       numPhysicalVgprs 1536, numPhysicalSgprs 800, numAvailableVgprs 512,
 *       numAvailableSgprs 106; computeWorkGroupSize the pipeline's real workgroup size, read
 *       from its SPIR-V (LocalSize, LocalSizeId or the WorkgroupSize built-in, with the
 *       pipeline's specialization constants applied), or {0, 0, 0} where the layer cannot tell
 *       (a size computed by OpSpecConstantOp, a module it never saw).
 *   VK_SHADER_INFO_TYPE_DISASSEMBLY_AMD                "p3lab fake disassembly\n" with its NUL
 *   VK_SHADER_INFO_TYPE_BINARY_AMD                     VK_ERROR_FEATURE_NOT_PRESENT
 * Sizes follow the spec: with pInfo NULL, *pInfoSize is set to the full size (the struct, or
 * the text with its NUL); otherwise at most *pInfoSize bytes are written, *pInfoSize is set to
 * the bytes written, and VK_INCOMPLETE is returned when that is less than the full size (a
 * truncated text then has no NUL).
 *
 * The layer answers even where the driver has the extension itself (it is then not stripped),
 * so the values are the same on every machine. Where the driver lacks it, it is stripped from
 * vkCreateDevice before the driver sees it; the extension has no feature struct. A device that
 * did not enable the extension gets NULL for vkGetShaderInfoAMD from vkGetDeviceProcAddr, and
 * calling the layer's function on such a device anyway aborts loudly.
 *
 * Several instances and devices per process (p3lab makes a new device after a lost one), kept
 * in tables keyed by the dispatch key as in tests/fault_layer/layer.c. Shader modules are
 * copied at creation; a compute pipeline records its workgroup size at creation. A mutex
 * guards the tables. Built by tests/shader_info.rs with `cc`.
 */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAYER_NAME "VK_LAYER_P3LAB_fake_shader_info"
#define EXPORT __attribute__((visibility("default")))

#define DISASSEMBLY "p3lab fake disassembly\n"

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

#define HANDLE(x) ((uint64_t)(uintptr_t)(x))

/* ---- per-instance and per-device state ------------------------------------------------------ */

struct instance {
    void *key; /* 0: free slot */
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
};

struct device {
    void *key; /* 0: free slot */
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkCreateShaderModule CreateShaderModule;
    PFN_vkDestroyShaderModule DestroyShaderModule;
    PFN_vkCreateComputePipelines CreateComputePipelines;
    PFN_vkDestroyPipeline DestroyPipeline;
    int enabled; /* the application enabled VK_AMD_shader_info */
};

static struct instance instances[MAX_INSTANCES];
static struct device devices[MAX_DEVICES];

static struct instance *find_instance_locked(const void *handle) {
    if (!handle) return NULL;
    void *k = key_of(handle);
    for (int i = 0; i < MAX_INSTANCES; i++)
        if (instances[i].key == k) return &instances[i];
    return NULL;
}

/* The instance of a VkInstance or VkPhysicalDevice; the entry lives until vkDestroyInstance. */
static struct instance *find_instance(const void *handle) {
    LOCK();
    struct instance *in = find_instance_locked(handle);
    UNLOCK();
    return in;
}

/* The device of a VkDevice; the entry lives until vkDestroyDevice. */
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

/* ---- shader modules and compute pipelines ----------------------------------------------------
 * Records of (device key, handle): modules with a copy of their SPIR-V, compute pipelines with
 * their workgroup size. */

struct rec {
    void *dev;
    uint64_t handle;
    uint32_t *code; /* modules */
    size_t words;   /* modules */
    uint32_t wg[3]; /* pipelines */
};

struct recs {
    struct rec *v;
    size_t n, cap;
};

static struct recs modules, pipelines;

static struct rec *rec_find(struct recs *s, void *dev, uint64_t h) {
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].dev == dev && s->v[i].handle == h) return &s->v[i];
    return NULL;
}

static struct rec *rec_add(struct recs *s, void *dev, uint64_t h) {
    struct rec *r = rec_find(s, dev, h);
    if (r) {
        free(r->code);
    } else {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->v = realloc(s->v, s->cap * sizeof *s->v);
            if (!s->v) die("out of memory");
        }
        r = &s->v[s->n++];
    }
    memset(r, 0, sizeof *r);
    r->dev = dev;
    r->handle = h;
    return r;
}

static void rec_del(struct recs *s, void *dev, uint64_t h) {
    struct rec *r = rec_find(s, dev, h);
    if (!r) return;
    free(r->code);
    *r = s->v[--s->n];
}

static void rec_del_all(struct recs *s, void *dev) {
    for (size_t i = 0; i < s->n;)
        if (s->v[i].dev == dev) {
            free(s->v[i].code);
            s->v[i] = s->v[--s->n];
        } else {
            i++;
        }
}

static const void *find_struct(const void *chain, VkStructureType s) {
    for (const VkBaseInStructure *b = chain; b; b = b->pNext)
        if (b->sType == s) return b;
    return NULL;
}

/* ---- the workgroup size from SPIR-V ----------------------------------------------------------- */

enum {
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_CONSTANT = 43,
    OP_CONSTANT_COMPOSITE = 44,
    OP_SPEC_CONSTANT = 50,
    OP_SPEC_CONSTANT_COMPOSITE = 51,
    OP_DECORATE = 71,
    OP_EXECUTION_MODE_ID = 331,
    MODEL_GLCOMPUTE = 5,
    MODE_LOCAL_SIZE = 17,
    MODE_LOCAL_SIZE_ID = 38,
    DECORATION_SPEC_ID = 1,
    DECORATION_BUILTIN = 11,
    BUILTIN_WORKGROUP_SIZE = 25,
};

struct spv_id {
    uint32_t value, spec_id, parts[3];
    uint8_t known, has_spec_id, composite;
};

/* The value of scalar constant `id`, with the specialization applied; 0 if not a known one. */
static int spv_value(const struct spv_id *ids, uint32_t bound, uint32_t id, const VkSpecializationInfo *spec,
                     uint32_t *out) {
    if (id >= bound || !ids[id].known || ids[id].composite) return 0;
    *out = ids[id].value;
    if (ids[id].has_spec_id && spec)
        for (uint32_t i = 0; i < spec->mapEntryCount; i++) {
            const VkSpecializationMapEntry *e = &spec->pMapEntries[i];
            if (e->constantID != ids[id].spec_id) continue;
            if (!spec->pData || e->offset + e->size > spec->dataSize || e->size == 0) return 0;
            uint32_t v = 0;
            memcpy(&v, (const char *)spec->pData + e->offset, e->size < 4 ? e->size : 4);
            *out = v;
        }
    return 1;
}

/* The workgroup size of the GLCompute entry point `name` of SPIR-V `w` (n words) under `spec`.
 * 0 (and `out` untouched) where it cannot tell. */
static int workgroup_size(const uint32_t *w, size_t n, const char *name, const VkSpecializationInfo *spec,
                          uint32_t out[3]) {
    if (!w || !name || n < 5 || w[0] != 0x07230203u || w[3] == 0 || w[3] > (1u << 22)) return 0;
    uint32_t bound = w[3];
    struct spv_id *ids = calloc(bound, sizeof *ids);
    if (!ids) return 0;
    int have_func = 0, mode = 0; /* mode: 1 literal LocalSize, 2 LocalSizeId */
    uint32_t func = 0, size[3] = {0, 0, 0}, builtin = 0;
    for (size_t i = 5; i < n;) {
        uint32_t len = w[i] >> 16, op = w[i] & 0xffffu;
        if (len == 0 || i + len > n) break;
        const uint32_t *a = &w[i + 1]; /* operands, len - 1 words */
        switch (op) {
        case OP_ENTRY_POINT:
            if (len >= 4 && a[0] == MODEL_GLCOMPUTE && !have_func &&
                strnlen((const char *)&a[2], (len - 3) * 4) < (len - 3) * 4 &&
                strcmp((const char *)&a[2], name) == 0) {
                have_func = 1;
                func = a[1];
            }
            break;
        case OP_EXECUTION_MODE:
        case OP_EXECUTION_MODE_ID:
            if (len >= 6 && have_func && a[0] == func &&
                ((op == OP_EXECUTION_MODE && a[1] == MODE_LOCAL_SIZE) ||
                 (op == OP_EXECUTION_MODE_ID && a[1] == MODE_LOCAL_SIZE_ID))) {
                mode = op == OP_EXECUTION_MODE ? 1 : 2;
                memcpy(size, &a[2], sizeof size);
            }
            break;
        case OP_DECORATE:
            if (len >= 4 && a[0] < bound && a[1] == DECORATION_SPEC_ID) {
                ids[a[0]].spec_id = a[2];
                ids[a[0]].has_spec_id = 1;
            }
            if (len >= 4 && a[1] == DECORATION_BUILTIN && a[2] == BUILTIN_WORKGROUP_SIZE) builtin = a[0];
            break;
        case OP_CONSTANT:
        case OP_SPEC_CONSTANT:
            if (len >= 4 && a[1] < bound) {
                ids[a[1]].value = a[2]; /* the low word: workgroup sizes are 32-bit */
                ids[a[1]].known = 1;
            }
            break;
        case OP_CONSTANT_COMPOSITE:
        case OP_SPEC_CONSTANT_COMPOSITE:
            if (len == 6 && a[1] < bound) {
                memcpy(ids[a[1]].parts, &a[2], sizeof ids[a[1]].parts);
                ids[a[1]].known = ids[a[1]].composite = 1;
            }
            break;
        }
        i += len;
    }
    uint32_t r[3];
    int ok = 0;
    if (builtin && builtin < bound && ids[builtin].composite) /* the built-in wins over LocalSize */
        ok = spv_value(ids, bound, ids[builtin].parts[0], spec, &r[0]) &&
             spv_value(ids, bound, ids[builtin].parts[1], spec, &r[1]) &&
             spv_value(ids, bound, ids[builtin].parts[2], spec, &r[2]);
    else if (mode == 2)
        ok = spv_value(ids, bound, size[0], spec, &r[0]) && spv_value(ids, bound, size[1], spec, &r[1]) &&
             spv_value(ids, bound, size[2], spec, &r[2]);
    else if (mode == 1) {
        memcpy(r, size, sizeof r);
        ok = 1;
    }
    free(ids);
    if (ok) memcpy(out, r, sizeof r);
    return ok;
}

/* ---- physical-device commands ----------------------------------------------------------------- */

static const VkExtensionProperties INFO_EXT = {VK_AMD_SHADER_INFO_EXTENSION_NAME, VK_AMD_SHADER_INFO_SPEC_VERSION};

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

/* The driver's device extensions (caller frees, room for one more), or NULL. */
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

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(
    VkPhysicalDevice pd, const char *layer, uint32_t *count, VkExtensionProperties *props) {
    struct instance *in = find_instance(pd);
    if (!in) die("vkEnumerateDeviceExtensionProperties on an unknown physical device");
    if (layer && strcmp(layer, LAYER_NAME) == 0) return copy_out(&INFO_EXT, 1, count, props);
    if (layer) return in->EnumerateDeviceExtensionProperties(pd, layer, count, props);
    uint32_t n;
    VkExtensionProperties *all = driver_extensions(in, pd, &n);
    if (!all) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (!has_ext(all, n, INFO_EXT.extensionName)) all[n++] = INFO_EXT;
    VkResult r = copy_out(all, n, count, props);
    free(all);
    return r;
}

/* ---- shader modules and pipelines --------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateShaderModule(VkDevice d, const VkShaderModuleCreateInfo *ci,
                                                               const VkAllocationCallbacks *a, VkShaderModule *out) {
    struct device *dev = device_of(d);
    VkResult r = dev->CreateShaderModule(d, ci, a, out);
    if (r != VK_SUCCESS) return r;
    size_t words = ci->codeSize / 4;
    uint32_t *code = malloc(words * 4 + 4);
    if (!code) die("out of memory");
    memcpy(code, ci->pCode, words * 4);
    LOCK();
    struct rec *m = rec_add(&modules, dev->key, HANDLE(*out));
    m->code = code;
    m->words = words;
    UNLOCK();
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyShaderModule(VkDevice d, VkShaderModule m, const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    LOCK();
    rec_del(&modules, dev->key, HANDLE(m));
    UNLOCK();
    dev->DestroyShaderModule(d, m, a);
}

/* The workgroup size of a compute stage, or {0, 0, 0}; the caller holds the lock. */
static void stage_workgroup_size(void *dev, const VkPipelineShaderStageCreateInfo *s, uint32_t wg[3]) {
    memset(wg, 0, 3 * sizeof *wg);
    const uint32_t *code = NULL;
    size_t words = 0;
    struct rec *m = s->module ? rec_find(&modules, dev, HANDLE(s->module)) : NULL;
    if (m) {
        code = m->code;
        words = m->words;
    } else if (!s->module) { /* VK_KHR_maintenance5: the module's create info in the chain */
        const VkShaderModuleCreateInfo *mci = find_struct(s->pNext, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        if (mci) {
            code = mci->pCode;
            words = mci->codeSize / 4;
        }
    }
    workgroup_size(code, words, s->pName, s->pSpecializationInfo, wg);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateComputePipelines(VkDevice d, VkPipelineCache cache, uint32_t n,
                                                                   const VkComputePipelineCreateInfo *ci,
                                                                   const VkAllocationCallbacks *a, VkPipeline *out) {
    struct device *dev = device_of(d);
    VkResult r = dev->CreateComputePipelines(d, cache, n, ci, a, out);
    LOCK();
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != VK_NULL_HANDLE) {
            uint32_t wg[3];
            stage_workgroup_size(dev->key, &ci[i].stage, wg);
            memcpy(rec_add(&pipelines, dev->key, HANDLE(out[i]))->wg, wg, sizeof wg);
        }
    UNLOCK();
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyPipeline(VkDevice d, VkPipeline p, const VkAllocationCallbacks *a) {
    struct device *dev = device_of(d);
    LOCK();
    rec_del(&pipelines, dev->key, HANDLE(p));
    UNLOCK();
    dev->DestroyPipeline(d, p, a);
}

/* ---- VK_AMD_shader_info ------------------------------------------------------------------------- */

/* The spec's size protocol for `full` bytes at `src`. */
static VkResult copy_info(const void *src, size_t full, size_t *size, void *dst) {
    if (!dst) {
        *size = full;
        return VK_SUCCESS;
    }
    size_t k = *size < full ? *size : full;
    memcpy(dst, src, k);
    *size = k;
    return k < full ? VK_INCOMPLETE : VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetShaderInfoAMD(VkDevice d, VkPipeline p, VkShaderStageFlagBits stage,
                                                             VkShaderInfoTypeAMD type, size_t *size, void *info) {
    struct device *dev = device_of(d);
    if (!dev->enabled) die("vkGetShaderInfoAMD on a device that did not enable VK_AMD_shader_info");
    if (!size) die("vkGetShaderInfoAMD: pInfoSize is NULL");
    if (stage != VK_SHADER_STAGE_COMPUTE_BIT) return VK_ERROR_FEATURE_NOT_PRESENT;
    uint32_t wg[3];
    LOCK();
    struct rec *rec = rec_find(&pipelines, dev->key, HANDLE(p));
    if (rec) memcpy(wg, rec->wg, sizeof wg);
    UNLOCK();
    if (!rec) return VK_ERROR_FEATURE_NOT_PRESENT; /* not a compute pipeline: no compute stage */
    switch (type) {
    case VK_SHADER_INFO_TYPE_STATISTICS_AMD: {
        VkShaderStatisticsInfoAMD s;
        memset(&s, 0, sizeof s);
        s.shaderStageMask = VK_SHADER_STAGE_COMPUTE_BIT;
        s.resourceUsage.numUsedVgprs = 40;
        s.resourceUsage.numUsedSgprs = 24;
        s.resourceUsage.ldsSizePerLocalWorkGroup = 65536;
        s.resourceUsage.ldsUsageSizeInBytes = 1024;
        s.resourceUsage.scratchMemUsageInBytes = 16;
        s.numPhysicalVgprs = 1536;
        s.numPhysicalSgprs = 800;
        s.numAvailableVgprs = 512;
        s.numAvailableSgprs = 106;
        memcpy(s.computeWorkGroupSize, wg, sizeof wg);
        return copy_info(&s, sizeof s, size, info);
    }
    case VK_SHADER_INFO_TYPE_DISASSEMBLY_AMD:
        return copy_info(DISASSEMBLY, sizeof DISASSEMBLY, size, info);
    default: /* VK_SHADER_INFO_TYPE_BINARY_AMD and anything else */
        return VK_ERROR_FEATURE_NOT_PRESENT;
    }
}

/* ---- device ------------------------------------------------------------------------------------- */

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice d, const VkAllocationCallbacks *a) {
    if (!d) return;
    struct device *dev = device_of(d);
    PFN_vkDestroyDevice destroy = dev->DestroyDevice;
    LOCK();
    rec_del_all(&modules, dev->key);
    rec_del_all(&pipelines, dev->key);
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

    uint32_t n_driver;
    VkExtensionProperties *driver = driver_extensions(in, pd, &n_driver);
    if (!driver) return VK_ERROR_OUT_OF_HOST_MEMORY;
    int native = has_ext(driver, n_driver, VK_AMD_SHADER_INFO_EXTENSION_NAME);
    free(driver);
    VkDeviceCreateInfo c = *ci;
    const char **exts = calloc(ci->enabledExtensionCount + 1, sizeof *exts);
    if (!exts) return VK_ERROR_OUT_OF_HOST_MEMORY;
    int enabled = 0;
    c.enabledExtensionCount = 0;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
        int ours = strcmp(ci->ppEnabledExtensionNames[i], VK_AMD_SHADER_INFO_EXTENSION_NAME) == 0;
        enabled |= ours;
        if (native || !ours) exts[c.enabledExtensionCount++] = ci->ppEnabledExtensionNames[i];
    }
    c.ppEnabledExtensionNames = exts;
    VkResult r = create(pd, &c, a, out);
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
    dev->enabled = enabled;
#define DEV(name) dev->name = (PFN_vk##name)gdpa(*out, "vk" #name)
    DEV(DestroyDevice);
    DEV(CreateShaderModule);
    DEV(DestroyShaderModule);
    DEV(CreateComputePipelines);
    DEV(DestroyPipeline);
#undef DEV
    UNLOCK();
    return VK_SUCCESS;
}

/* ---- instance ----------------------------------------------------------------------------------- */

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
#undef INST
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

/* ---- proc-addr plumbing ------------------------------------------------------------------------- */

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
    HOOK(GetShaderInfoAMD);
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice d, const char *name) {
    struct device *dev = find_device(d);
    if (!dev) return NULL;
    /* As a driver does: no command of an extension the device did not enable. */
    if (strcmp(name, "vkGetShaderInfoAMD") == 0 && !dev->enabled) return NULL;
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
    PFN_vkVoidFunction f = device_hook(name);
    if (f) return f;
    struct instance *in = find_instance(i);
    return in ? in->gipa(i, name) : NULL;
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
