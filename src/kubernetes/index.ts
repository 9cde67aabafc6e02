// The Kubernetes reader's public surface (docs/kubernetes.md).
export type {
  DevicePluginConfigs,
  K8sDeploy,
  K8sPool,
  K8sSeat,
  K8sUnplaced,
  KubernetesFleet,
  K8sSource,
  KubernetesReads,
  NodeChoice,
  SharingConfig,
} from "./records.js";
export { readKubernetesFiles } from "./read.js";
export { secretValuesOf } from "./secret-data.js";
