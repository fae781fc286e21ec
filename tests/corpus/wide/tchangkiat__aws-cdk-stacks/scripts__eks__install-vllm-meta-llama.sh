# vllm-meta-llama.yaml is adapted from https://docs.vllm.ai/en/latest/deployment/k8s.html

cat <<EOF >>vllm-meta-llama.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: vllm-meta-llama
spec:
  accessModes:
    - ReadWriteOnce
  volumeMode: Filesystem
  storageClassName: gp3
  resources:
    requests:
      storage: 50Gi
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-meta-llama-server
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: vllm-meta-llama
  template:
    metadata:
      labels:
        app.kubernetes.io/name: vllm-meta-llama
    spec:
      containers:
      - name: vllm-meta-llama
        image: vllm/vllm-openai:nightly
        command: ["/bin/sh", "-c"]
        args: [
          "vllm serve meta-llama/Llama-3.2-1B-Instruct"
        ]
        env:
        - name: HUGGING_FACE_HUB_TOKEN
          valueFrom:
            secretKeyRef:
              name: hf-token-secret
              key: token
        ports:
          - containerPort: 8000
        volumeMounts:
          - name: llama-storage
            mountPath: /root/.cache/huggingface
          - name: shm
            mountPath: /dev/shm
        resources:
          limits:
            cpu: "10"
            memory: 20G
            nvidia.com/gpu: "1"
          requests:
            cpu: "2"
            memory: 6G
            nvidia.com/gpu: "1"
      volumes:
      - name: llama-storage
        persistentVolumeClaim:
          claimName: vllm-meta-llama
      # vLLM needs to access the host's shared memory for tensor parallel inference.
      - name: shm
        emptyDir:
          medium: Memory
          sizeLimit: "2Gi"
      nodeSelector:
        karpenter.sh/nodepool: gpu
        karpenter.k8s.aws/instance-family: g4dn
      tolerations:
        - key: "nvidia.com/gpu"
          effect: "NoSchedule"
          operator: "Exists"
---
apiVersion: v1
kind: Service
metadata:
  name: vllm-meta-llama-server
spec:
  selector:
    app.kubernetes.io/name: vllm-meta-llama
  ports:
  - protocol: TCP
    port: 8000
    targetPort: 8000
  type: ClusterIP
EOF

kubectl apply -f vllm-meta-llama.yaml