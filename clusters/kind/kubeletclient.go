package kind

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// From kubeadm 1.36 an apiserver's kubelet client certificate no longer carries the group
// kubeadm:cluster-admins (cmd/kubeadm/app/phases/certs/certlist.go KubeadmCertKubeletClient,
// v1.36.3 against v1.35.4): the right to reach the kubelets (logs, exec, port-forward) comes
// from the ClusterRoleBinding kubeadm:apiserver-kubelet-client, which `kubeadm init` and
// `kubeadm upgrade apply` of 1.36 create (phases/bootstraptoken/node/tlsbootstrap.go
// AllowAPIServerToAccessKubeletAPI). A cluster begun by an older kubeadm and joined by a
// 1.36 node never ran either, so the newer apiserver is refused by every kubelet
// ("kube-apiserver-kubelet-client cannot get nodes/proxy"): a kubeadm cluster mid-upgrade
// has the binding from the upgrade's first step. skewcheck makes the binding as that step
// would; it grants the built-in system:kubelet-api-admin, nothing else.
const (
	kubeletClientBinding = "kubeadm:apiserver-kubelet-client"
	kubeletClientUser    = "kube-apiserver-kubelet-client"
	kubeletAPIAdminRole  = "system:kubelet-api-admin"
)

// grantKubeletClient makes the binding unless it is there.
func (c *Cluster) grantKubeletClient(ctx context.Context) error {
	cfg, err := c.RestConfig(c.Servers[0].Name, Admin)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: kubeletClientBinding},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kubeletAPIAdminRole},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: kubeletClientUser}}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("granting the apiservers' kubelet client access to the kubelets, as kubeadm 1.36 does (ClusterRoleBinding %s): %w", kubeletClientBinding, err)
	}
	return nil
}
