// The Kubernetes reader's public surface (contract section 18).
export type {
  DevicePluginConfigs,
  GpuAsk,
  K8sDeploy,
  K8sPool,
  K8sSeat,
  K8sUnplaced,
  KubernetesFleet,
  K8sProblem,
  K8sRead,
  K8sSource,
  KubernetesReads,
  NodeChoice,
  SharingConfig,
} from "./records.js";
export { readKubernetesFiles, type KubernetesReadOptions } from "./read.js";
export { secretValuesOf } from "./secret-data.js";
