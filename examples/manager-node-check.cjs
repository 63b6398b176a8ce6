// What Manager runs when an admin saves a Kubernetes node (CommonJS, as Manager is).
// Usage: node examples/manager-node-check.cjs /path/to/kubeconfig namespace
const { checkKubernetesNode, KubernetesNodeConfigError } = require('kube-provisioner/manager');

async function saveNode(form) {
  try {
    const { ok, settings, report } = await checkKubernetesNode(form, { needs: 'lifecycle' });
    // Safe to return to the browser as is: paths, names and reasons, never the kubeconfig's contents.
    return { status: ok ? 200 : 422, body: { settings, report } };
  } catch (error) {
    if (error instanceof KubernetesNodeConfigError) return { status: 400, body: { issues: error.issues } };
    throw error;
  }
}

const [kubeconfigPath, kubeNamespace] = process.argv.slice(2);
saveNode({ name: 'k8s-local', nodeType: 'kubernetes', kubeconfigPath, kubeNamespace }).then(({ status, body }) => {
  console.log(status, JSON.stringify(body.issues ?? body.report.items.map((item) => `${item.id}=${item.status}`)));
});
